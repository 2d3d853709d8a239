package android.view;

/** android.view.InputEvent. */
public abstract class InputEvent {
    InputEvent() {}

    /** wire is how the fake framework sends the event to the phone. */
    public abstract String[] wire();
}
