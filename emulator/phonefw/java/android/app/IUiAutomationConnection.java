package android.app;

/** android.app.IUiAutomationConnection (hidden AIDL interface). */
public interface IUiAutomationConnection {}
