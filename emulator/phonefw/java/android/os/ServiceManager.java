package android.os;

/** android.os.ServiceManager (hidden): getService("clipboard") is the only service the helper asks for. */
public final class ServiceManager {
    private ServiceManager() {}

    public static IBinder getService(String name) {
        if ("clipboard".equals(name)) {
            return new IBinder() {};
        }
        return null;
    }
}
