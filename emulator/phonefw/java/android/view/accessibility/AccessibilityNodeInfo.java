package android.view.accessibility;

import android.graphics.Rect;
import android.os.Bundle;
import com.adbconnector.phonefw.Phone;
import com.adbconnector.phonefw.Screen;
import java.util.ArrayList;
import java.util.List;

/**
 * android.view.accessibility.AccessibilityNodeInfo: the getters the dumper
 * reads and the actions the helper performs. Actions go to the phone by the
 * node's path (window/index/...), as the real one goes to the app's view.
 */
public class AccessibilityNodeInfo {
    public static final int FOCUS_INPUT = 1;
    public static final int ACTION_FOCUS = 0x1;
    public static final int ACTION_PASTE = 0x8000;
    public static final int ACTION_SET_SELECTION = 0x20000;
    public static final int ACTION_SET_TEXT = 0x200000;
    public static final String ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE = "ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE";
    public static final String ACTION_ARGUMENT_SELECTION_START_INT = "ACTION_ARGUMENT_SELECTION_START_INT";
    public static final String ACTION_ARGUMENT_SELECTION_END_INT = "ACTION_ARGUMENT_SELECTION_END_INT";

    private final String path;
    public String text, resourceId, className, packageName, contentDesc, hint;
    public boolean visible = true;
    public boolean checkable, checked, clickable, enabled, focusable, focused, scrollable, longClickable, password, selected;
    public int drawingOrder;
    public Rect bounds = new Rect();
    public final List<AccessibilityNodeInfo> children = new ArrayList<>();

    public AccessibilityNodeInfo(String path) {
        this.path = path;
    }

    public String path() {
        return path;
    }

    public CharSequence getText() { return text; }
    public String getViewIdResourceName() { return resourceId; }
    public CharSequence getClassName() { return className; }
    public CharSequence getPackageName() { return packageName; }
    public CharSequence getContentDescription() { return contentDesc; }
    public CharSequence getHintText() { return hint; }
    public boolean isCheckable() { return checkable; }
    public boolean isChecked() { return checked; }
    public boolean isClickable() { return clickable; }
    public boolean isEnabled() { return enabled; }
    public boolean isFocusable() { return focusable; }
    public boolean isFocused() { return focused; }
    public boolean isScrollable() { return scrollable; }
    public boolean isLongClickable() { return longClickable; }
    public boolean isPassword() { return password; }
    public boolean isSelected() { return selected; }
    public boolean isVisibleToUser() { return visible; }
    public boolean isShowingHintText() { return false; }
    public int getDrawingOrder() { return drawingOrder; }
    public int getChildCount() { return children.size(); }
    public AccessibilityNodeInfo getChild(int index) { return children.get(index); }
    public void recycle() {}

    /** Text fields: the dump has no editable attribute; EditText and its subclasses are. */
    public boolean isEditable() {
        return className != null && (className.endsWith("EditText") || className.endsWith("AutoCompleteTextView"));
    }

    public void getBoundsInScreen(Rect out) {
        out.set(bounds);
    }

    public boolean performAction(int action) {
        return performAction(action, null);
    }

    public boolean performAction(int action, Bundle args) {
        String a = "";
        String b = "";
        if (args != null) {
            CharSequence t = args.getCharSequence(ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE);
            if (t != null) {
                a = t.toString();
            }
            if (action == ACTION_SET_SELECTION) {
                a = String.valueOf(args.getInt(ACTION_ARGUMENT_SELECTION_START_INT));
                b = String.valueOf(args.getInt(ACTION_ARGUMENT_SELECTION_END_INT));
            }
        }
        return Phone.bool("action", path, String.valueOf(action), a, b);
    }

    /** refresh reads the node again from a fresh screen; false when it is gone. */
    public boolean refresh() {
        AccessibilityInteractionClient.clear();
        AccessibilityNodeInfo n = AccessibilityInteractionClient.screen().find(path);
        if (n == null) {
            return false;
        }
        text = n.text;
        checked = n.checked;
        focused = n.focused;
        selected = n.selected;
        bounds = n.bounds;
        return true;
    }
}
