package android.view.accessibility;

/** android.view.accessibility.AccessibilityWindowInfo: a window's root. */
public final class AccessibilityWindowInfo {
    private final AccessibilityNodeInfo root;

    public AccessibilityWindowInfo(AccessibilityNodeInfo root) {
        this.root = root;
    }

    public AccessibilityNodeInfo getRoot() {
        return root;
    }
}
