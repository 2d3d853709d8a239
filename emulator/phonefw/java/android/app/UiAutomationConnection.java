package android.app;

/** android.app.UiAutomationConnection (hidden): public no-argument constructor, as in AOSP. */
public final class UiAutomationConnection implements IUiAutomationConnection {
    public UiAutomationConnection() {}
}
