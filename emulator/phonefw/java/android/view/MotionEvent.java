package android.view;

/** android.view.MotionEvent: the obtain variants the helper uses. */
public final class MotionEvent extends InputEvent {
    public static final int ACTION_DOWN = 0, ACTION_UP = 1, ACTION_MOVE = 2, ACTION_POINTER_DOWN = 5, ACTION_POINTER_UP = 6;

    public static final class PointerProperties {
        public int id;
        public int toolType;

        public PointerProperties() {}
    }

    public static final class PointerCoords {
        public float x, y, pressure, size;

        public PointerCoords() {}
    }

    private long downTime, eventTime;
    private int action, source;
    private float[] xs, ys;

    private MotionEvent() {}

    public static MotionEvent obtain(long downTime, long eventTime, int action, float x, float y, int metaState) {
        MotionEvent e = new MotionEvent();
        e.downTime = downTime;
        e.eventTime = eventTime;
        e.action = action;
        e.xs = new float[] {x};
        e.ys = new float[] {y};
        return e;
    }

    public static MotionEvent obtain(long downTime, long eventTime, int action, int pointerCount,
            PointerProperties[] pointerProperties, PointerCoords[] pointerCoords, int metaState, int buttonState,
            float xPrecision, float yPrecision, int deviceId, int edgeFlags, int source, int flags) {
        MotionEvent e = new MotionEvent();
        e.downTime = downTime;
        e.eventTime = eventTime;
        e.action = action;
        e.source = source;
        e.xs = new float[pointerCount];
        e.ys = new float[pointerCount];
        for (int i = 0; i < pointerCount; i++) {
            e.xs[i] = pointerCoords[i].x;
            e.ys[i] = pointerCoords[i].y;
        }
        return e;
    }

    public void setSource(int source) { this.source = source; }
    public int getSource() { return source; }
    public int getAction() { return action; }
    public int getPointerCount() { return xs.length; }
    public void recycle() {}

    @Override
    public String[] wire() {
        String[] w = new String[5 + 2 * xs.length];
        w[0] = "motion";
        w[1] = String.valueOf(action);
        w[2] = String.valueOf(source);
        w[3] = String.valueOf(downTime);
        w[4] = String.valueOf(eventTime);
        for (int i = 0; i < xs.length; i++) {
            w[5 + 2 * i] = String.valueOf(xs[i]);
            w[6 + 2 * i] = String.valueOf(ys[i]);
        }
        return w;
    }
}
