package android.app;

import android.content.Context;
import android.os.Looper;

/** android.app.ActivityThread (hidden): the system context an app_process can make. */
public final class ActivityThread {
    private static ActivityThread sCurrentActivityThread;

    ActivityThread() {}

    public static ActivityThread currentActivityThread() {
        return sCurrentActivityThread;
    }

    public Context getSystemContext() {
        return new Context() {
            @Override
            public Looper getMainLooper() {
                return Looper.getMainLooper();
            }
        };
    }
}
