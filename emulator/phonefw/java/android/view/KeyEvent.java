package android.view;

/** android.view.KeyEvent: the ten-argument constructor `input keyevent` uses. */
public class KeyEvent extends InputEvent {
    public static final int ACTION_DOWN = 0, ACTION_UP = 1, FLAG_LONG_PRESS = 0x80;

    private final long downTime, eventTime;
    private final int action, code, repeat, flags, source;

    public KeyEvent(long downTime, long eventTime, int action, int code, int repeat, int metaState,
            int deviceId, int scancode, int flags, int source) {
        this.downTime = downTime;
        this.eventTime = eventTime;
        this.action = action;
        this.code = code;
        this.repeat = repeat;
        this.flags = flags;
        this.source = source;
    }

    public int getKeyCode() { return code; }
    public int getAction() { return action; }
    public int getRepeatCount() { return repeat; }
    public int getFlags() { return flags; }

    @Override
    public String[] wire() {
        return new String[] {"key", String.valueOf(action), String.valueOf(code), String.valueOf(repeat),
            String.valueOf(flags), String.valueOf(downTime), String.valueOf(eventTime)};
    }
}
