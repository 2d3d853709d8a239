package android.content;

import android.os.IBinder;
import com.adbconnector.phonefw.Phone;

/**
 * android.content.IClipboard (hidden AIDL), with each SDK's parameters
 * (AOSP core/java/android/content/IClipboard.aidl): Android 10 (pkg,
 * userId); 11-13 (pkg, attributionTag, userId); 14+ adds deviceId. The
 * package must be the caller's (the shell's, com.android.shell).
 */
public interface IClipboard {
    ClipData getPrimaryClip(String pkg, int userId); // @sdk -29
    void setPrimaryClip(ClipData clip, String callingPackage, int userId); // @sdk -29
    ClipData getPrimaryClip(String pkg, String attributionTag, int userId); // @sdk 30-33
    void setPrimaryClip(ClipData clip, String callingPackage, String attributionTag, int userId); // @sdk 30-33
    ClipData getPrimaryClip(String pkg, String attributionTag, int userId, int deviceId); // @sdk 34+
    void setPrimaryClip(ClipData clip, String callingPackage, String attributionTag, int userId, int deviceId); // @sdk 34+

    abstract class Stub implements IClipboard {
        public static IClipboard asInterface(IBinder b) {
            return b == null ? null : new Proxy();
        }

        /** The binder proxy; public here so that host-JVM reflection may call it (ART checks only the method). */
        public static class Proxy implements IClipboard {
            private static ClipData get(String pkg) {
                check(pkg);
                return ClipData.newPlainText(null, Phone.str("clipget"));
            }

            private static void set(ClipData clip, String pkg) {
                check(pkg);
                CharSequence t = clip.getItemAt(0).getText();
                Phone.call("clipset", t == null ? "" : t.toString());
            }

            private static void check(String pkg) {
                if (!"com.android.shell".equals(pkg)) {
                    throw new SecurityException("Calling uid 2000 does not own package " + pkg);
                }
            }

            public ClipData getPrimaryClip(String pkg, int userId) { return get(pkg); } // @sdk -29
            public void setPrimaryClip(ClipData clip, String pkg, int userId) { set(clip, pkg); } // @sdk -29
            public ClipData getPrimaryClip(String pkg, String tag, int userId) { return get(pkg); } // @sdk 30-33
            public void setPrimaryClip(ClipData clip, String pkg, String tag, int userId) { set(clip, pkg); } // @sdk 30-33
            public ClipData getPrimaryClip(String pkg, String tag, int userId, int deviceId) { return get(pkg); } // @sdk 34+
            public void setPrimaryClip(ClipData clip, String pkg, String tag, int userId, int deviceId) { set(clip, pkg); } // @sdk 34+
        }
    }
}
