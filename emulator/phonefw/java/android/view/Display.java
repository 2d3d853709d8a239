package android.view;

import android.graphics.Point;
import com.adbconnector.phonefw.Phone;

/** android.view.Display: rotation and real size from the phone. */
public final class Display {
    private final int w, h, rotation;

    public Display() {
        String[] p = Phone.str("display").split(" ");
        w = Integer.parseInt(p[0]);
        h = Integer.parseInt(p[1]);
        rotation = Integer.parseInt(p[2]);
    }

    public int getRotation() {
        return rotation;
    }

    public void getRealSize(Point out) {
        out.x = w;
        out.y = h;
    }
}
