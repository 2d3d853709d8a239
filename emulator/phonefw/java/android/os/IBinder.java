package android.os;

/** android.os.IBinder: only a handle here. */
public interface IBinder {}
