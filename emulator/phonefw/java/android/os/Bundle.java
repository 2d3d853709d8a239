package android.os;

import java.util.HashMap;

/** android.os.Bundle: the action arguments the helper passes. */
public final class Bundle {
    private final HashMap<String, Object> m = new HashMap<>();

    public Bundle() {}

    public void putCharSequence(String key, CharSequence value) {
        m.put(key, value);
    }

    public void putInt(String key, int value) {
        m.put(key, value);
    }

    public CharSequence getCharSequence(String key) {
        Object v = m.get(key);
        return v instanceof CharSequence ? (CharSequence) v : null;
    }

    public int getInt(String key) {
        Object v = m.get(key);
        return v instanceof Integer ? (Integer) v : 0;
    }
}
