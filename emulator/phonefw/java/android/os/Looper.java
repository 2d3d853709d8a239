package android.os;

/** android.os.Looper: a bare app_process has no main looper until prepareMainLooper. */
public final class Looper {
    private static Looper main;

    Looper() {}

    public static synchronized void prepareMainLooper() {
        if (main != null) {
            throw new IllegalStateException("The main Looper has already been prepared.");
        }
        main = new Looper();
    }

    public static synchronized Looper getMainLooper() {
        return main;
    }
}
