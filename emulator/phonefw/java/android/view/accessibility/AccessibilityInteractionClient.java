package android.view.accessibility;

import com.adbconnector.phonefw.Screen;

/**
 * android.view.accessibility.AccessibilityInteractionClient (hidden): the
 * process's node cache. A walk reads the cached screen until the cache is
 * cleared, so a helper that forgets to clear it sees a screen already gone
 * (mobile-next/mobilecli #415). clearCache() up to 33; from 34 it takes
 * the connection id.
 */
public final class AccessibilityInteractionClient {
    private static final AccessibilityInteractionClient INSTANCE = new AccessibilityInteractionClient();
    private static Screen cached;

    private AccessibilityInteractionClient() {}

    public static AccessibilityInteractionClient getInstance() {
        return INSTANCE;
    }

    public void clearCache() { // @sdk -33
        clear(); // @sdk -33
    } // @sdk -33

    public void clearCache(int connectionId) { // @sdk 34+
        clear(); // @sdk 34+
    } // @sdk 34+

    public static synchronized void clear() {
        cached = null;
    }

    public static synchronized Screen screen() {
        if (cached == null) {
            cached = Screen.fetch();
        }
        return cached;
    }
}
