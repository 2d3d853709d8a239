package android.hardware.input;

import android.view.InputEvent;
import com.adbconnector.phonefw.Phone;

/**
 * android.hardware.input.InputManager. Up to Android 13 the hidden static
 * getInstance() and injectInputEvent(InputEvent, int) live here; Android 14
 * moved them to InputManagerGlobal and dropped getInstance().
 */
public final class InputManager {
    public static final int INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH = 2;

    private static final InputManager INSTANCE = new InputManager(); // @sdk -33

    private InputManager() {}

    public static InputManager getInstance() { // @sdk -33
        return INSTANCE; // @sdk -33
    } // @sdk -33

    public boolean injectInputEvent(InputEvent event, int mode) {
        return Phone.bool(event.wire());
    }
}
