package android.hardware.display;

import android.view.Display;

/** android.hardware.display.DisplayManagerGlobal (hidden). */
public final class DisplayManagerGlobal {
    private static final DisplayManagerGlobal INSTANCE = new DisplayManagerGlobal();

    private DisplayManagerGlobal() {}

    public static DisplayManagerGlobal getInstance() {
        return INSTANCE;
    }

    public Display getRealDisplay(int displayId) {
        return displayId == 0 ? new Display() : null;
    }
}
