package android.os;

/** android.os.Build: only VERSION.SDK_INT, the level this source set models. */
public class Build {
    public static class VERSION {
        public static final int SDK_INT = Integer.parseInt("@SDK@");
    }
}
