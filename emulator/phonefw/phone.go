package phonefw

import (
	"context"
	"errors"
	"time"
)

// ErrBusy is what Phone.Connect returns while another owner holds the
// phone's one UiAutomation slot (a running `uiautomator`, monkey,
// uiautomator2, Appium).
var ErrBusy = errors.New("uiautomation slot held")

// Phone is what the fake framework stands on: the phone's state as the
// framework's services would report it. Implementations serialise their
// own state; calls come from one helper at a time.
type Phone interface {
	// Connect takes the UiAutomation slot (UiAutomation.connect, flags as
	// given); ErrBusy when someone else holds it.
	Connect(flags int) error
	// Disconnect frees the slot (also called when the helper exits).
	Disconnect()
	// WaitIdle is UiAutomation.waitForIdle: false when the screen did not
	// settle for idle within timeout.
	WaitIdle(ctx context.Context, idle, timeout time.Duration) bool
	// Display is the default display's real size and rotation.
	Display() (w, h, rotation int)
	// Dump is the screen as `uiautomator dump` XML, each top-level node
	// one window (top-most first); nil when the screen is off.
	Dump() []byte
	// Motion and Key are InputManager.injectInputEvent with
	// WAIT_FOR_FINISH: they return once the event took effect.
	Motion(ctx context.Context, m Motion) bool
	Key(ctx context.Context, k Key) bool
	// Action is AccessibilityNodeInfo.performAction on the node at path
	// (window index, then child indexes as the dump gives them). arg is
	// the text of ACTION_SET_TEXT, or the selection's start and end.
	Action(path []int, action int, arg, arg2 string) bool
	// ClipGet and ClipSet are the clipboard service's primary clip.
	ClipGet() string
	ClipSet(text string)
	// Screenshot is UiAutomation.takeScreenshot as PNG (nil: no frame).
	Screenshot(ctx context.Context) []byte
	// Encode is told of each Bitmap.compress (format "JPEG" or "PNG", the
	// image's size), so that a phone can charge the on-phone encode.
	Encode(ctx context.Context, format string, w, h int)
}

// Motion is one MotionEvent: its action (with the pointer index bits),
// source, times (uptime ms) and pointer coordinates.
type Motion struct {
	Action, Source  int
	DownTime, Event int64
	X, Y            []float64
}

// Key is one KeyEvent.
type Key struct {
	Action, Code, Repeat, Flags int
	DownTime, Event             int64
}

// AccessibilityNodeInfo actions the helper performs.
const (
	ActionFocus        = 0x1
	ActionPaste        = 0x8000
	ActionSetSelection = 0x20000
	ActionSetText      = 0x200000
)

// MotionEvent actions and the touchscreen source.
const (
	MotionDown        = 0
	MotionUp          = 1
	MotionMove        = 2
	MotionPointerDown = 5
	MotionPointerUp   = 6
	SourceTouchscreen = 0x1002
)
