package android.os;

/** android.os.SystemClock: uptimeMillis is a monotonic clock. */
public final class SystemClock {
    private SystemClock() {}

    public static long uptimeMillis() {
        return System.nanoTime() / 1000000L;
    }
}
