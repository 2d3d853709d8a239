package android.content;

import android.os.Looper;

/** android.content.Context: what UiAutomation(Context, ...) reads. */
public abstract class Context {
    public abstract Looper getMainLooper();

    public int getDisplayId() {
        return 0;
    }
}
