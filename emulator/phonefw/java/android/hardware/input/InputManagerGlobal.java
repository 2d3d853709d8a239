// @sdk 34+
package android.hardware.input;

import android.view.InputEvent;
import com.adbconnector.phonefw.Phone;

/** android.hardware.input.InputManagerGlobal (hidden, Android 14+). */
public final class InputManagerGlobal {
    private static final InputManagerGlobal INSTANCE = new InputManagerGlobal();

    private InputManagerGlobal() {}

    public static InputManagerGlobal getInstance() {
        return INSTANCE;
    }

    public boolean injectInputEvent(InputEvent event, int mode) {
        return Phone.bool(event.wire());
    }
}
