package android.app;

import android.accessibilityservice.AccessibilityServiceInfo;
import android.content.Context;
import android.graphics.Bitmap;
import android.os.Looper;
import android.view.accessibility.AccessibilityInteractionClient;
import android.view.accessibility.AccessibilityNodeInfo;
import android.view.accessibility.AccessibilityWindowInfo;
import com.adbconnector.phonefw.Phone;
import com.adbconnector.phonefw.Screen;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * android.app.UiAutomation with the constructors each SDK has (AOSP
 * core/java/android/app/UiAutomation.java): (Looper, IUiAutomationConnection)
 * everywhere, deprecated from 34; (Context, IUiAutomationConnection) from 34;
 * the public clearCache() from 34. connect() registers with the phone's one
 * UiAutomation slot and throws IllegalStateException when another holds it.
 */
public final class UiAutomation {
    public static final int FLAG_DONT_SUPPRESS_ACCESSIBILITY_SERVICES = 1;

    private boolean connected;
    private AccessibilityServiceInfo info = new AccessibilityServiceInfo();

    public UiAutomation(Looper looper, IUiAutomationConnection connection) {
        if (looper == null || connection == null) {
            throw new IllegalArgumentException("Looper cannot be null!");
        }
    }

    public UiAutomation(Context context, IUiAutomationConnection connection) { // @sdk 34+
        this(context.getMainLooper(), connection); // @sdk 34+
    } // @sdk 34+

    public void connect() {
        connect(0);
    }

    public void connect(int flags) {
        if (connected) {
            throw new IllegalStateException("Already connected!");
        }
        try {
            Phone.call("connect", String.valueOf(flags));
        } catch (Phone.Refused r) {
            throw new IllegalStateException("UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@1f2e3d4 already registered!");
        }
        connected = true;
    }

    public void disconnect() {
        check();
        connected = false;
        Phone.call("disconnect");
    }

    private void check() {
        if (!connected) {
            throw new IllegalStateException("Not connected!");
        }
    }

    public final AccessibilityServiceInfo getServiceInfo() {
        check();
        AccessibilityServiceInfo c = new AccessibilityServiceInfo();
        c.flags = info.flags;
        return c;
    }

    public final void setServiceInfo(AccessibilityServiceInfo i) {
        check();
        AccessibilityInteractionClient.clear();
        info = new AccessibilityServiceInfo();
        info.flags = i.flags;
    }

    public boolean clearCache() { // @sdk 34+
        check(); // @sdk 34+
        AccessibilityInteractionClient.clear(); // @sdk 34+
        return true; // @sdk 34+
    } // @sdk 34+

    public void waitForIdle(long idleTimeoutMillis, long globalTimeoutMillis) throws TimeoutException {
        check();
        if (!Phone.bool("idle", String.valueOf(idleTimeoutMillis), String.valueOf(globalTimeoutMillis))) {
            throw new TimeoutException("No idle state with idle timeout: " + idleTimeoutMillis + " within global timeout: " + globalTimeoutMillis);
        }
    }

    /** Only the active window unless FLAG_RETRIEVE_INTERACTIVE_WINDOWS is set. */
    public List<AccessibilityWindowInfo> getWindows() {
        check();
        Screen s = AccessibilityInteractionClient.screen();
        if ((info.flags & AccessibilityServiceInfo.FLAG_RETRIEVE_INTERACTIVE_WINDOWS) == 0) {
            return new ArrayList<>();
        }
        return new ArrayList<>(s.windows);
    }

    public AccessibilityNodeInfo getRootInActiveWindow() {
        check();
        Screen s = AccessibilityInteractionClient.screen();
        return s.windows.isEmpty() ? null : s.windows.get(0).getRoot();
    }

    public AccessibilityNodeInfo findFocus(int focus) {
        check();
        return AccessibilityInteractionClient.screen().focused();
    }

    public Bitmap takeScreenshot() {
        check();
        return Bitmap.decode(Phone.call("screenshot"));
    }
}
