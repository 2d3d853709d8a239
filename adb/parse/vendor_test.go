package parse

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Table tests for shapes real devices print that the early parsers got
// wrong; each has a golden input of the same shape under testdata/ whose
// source testdata/SOURCES.md names.

// TestLogcatTagWithColon: tags may contain ':' (Samsung's "SGM:GameManager",
// a truncated process name "earchbox:search"); liblog's logprint.cpp ends
// the tag with ": " in threadtime ("%-8s: ") and with "(pid): " in brief.
func TestLogcatTagWithColon(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, tag, msg string
	}{
		{"threadtime", "10-04 16:55:33.260  1427  1427 D SGM:GameManager: onDisplayChanged. displyId: 0, state: 2",
			"SGM:GameManager", "onDisplayChanged. displyId: 0, state: 2"},
		{"threadtime message with colons", "10-04 16:55:33.366  1044  1044 E SecVibrator-HAL-AIDL-EXT: V_3_0: performHapticEngine",
			"SecVibrator-HAL-AIDL-EXT", "V_3_0: performHapticEngine"},
		{"threadtime padded tag", "10-04 16:55:33.360   975  1036 I display : Set Affinity CPU ID : 0",
			"display", "Set Affinity CPU ID : 0"},
		{"threadtime colon tag, empty message", "10-04 16:55:33.260  1427  1427 D SGM:GameManager: ", "SGM:GameManager", ""},
		{"threadtime colon tag, trailing space trimmed", "10-04 16:55:33.260  1427  1427 D SGM:GameManager:", "SGM:GameManager", ""},
		{"threadtime,year uid", "2024-10-04 16:55:33.260  1000  1427  1427 D SGM:GameManager: x", "SGM:GameManager", "x"},
		{"brief", "D/SGM:GameManager( 1427): onDisplayChanged. displyId: 0", "SGM:GameManager", "onDisplayChanged. displyId: 0"},
		{"brief padded", "I/display (  975): Set Affinity CPU ID : 0", "display", "Set Affinity CPU ID : 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Logcat(tt.in)
			if err != nil || len(got) != 1 {
				t.Fatalf("Logcat(%q) = %v, %v", tt.in, got, err)
			}
			if diff := cmp.Diff([2]string{tt.tag, tt.msg}, [2]string{got[0].Tag, got[0].Message}); diff != "" {
				t.Errorf("tag, message (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWindowTitleVendorForms: mCurrentFocus titles some builds print
// around the AOSP "Window{hash uN title}" of WindowState.toString.
func TestWindowTitleVendorForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line       string
		window, pkg, act string
	}{
		{"aosp", "  mCurrentFocus=Window{5c4591 u0 com.hq.android.androiddemo/com.hq.android.androiddemo.MainActivity}",
			"com.hq.android.androiddemo/com.hq.android.androiddemo.MainActivity", "com.hq.android.androiddemo", "com.hq.android.androiddemo.MainActivity"},
		{"type attribute", "  mCurrentFocus=Window{df8de1 u0 com.netease.uuremote/com.remote.app.ui.activity.ScreenActivity type=1}",
			"com.netease.uuremote/com.remote.app.ui.activity.ScreenActivity", "com.netease.uuremote", "com.remote.app.ui.activity.ScreenActivity"},
		{"type attribute, trailing space", "  mCurrentFocus=Window{dc9225c u0 com.android.settings/com.android.settings.Settings type=1 }",
			"com.android.settings/com.android.settings.Settings", "com.android.settings", "com.android.settings.Settings"},
		{"package:hash", "  mCurrentFocus=Window{com.android.systemui:6d67f78 u0 NotificationShade}",
			"NotificationShade", "com.android.systemui", ""},
		{"package:hash, activity", "  mCurrentFocus=Window{com.android.settings:6d67f78 u0 com.android.settings/.Settings}",
			"com.android.settings/.Settings", "com.android.settings", "com.android.settings.Settings"},
		{"exiting", "  mCurrentFocus=Window{9c0ba6e u0 com.android.settings/com.android.settings.Settings EXITING}",
			"com.android.settings/com.android.settings.Settings", "com.android.settings", "com.android.settings.Settings"},
		{"splash screen", "  mCurrentFocus=Window{3a1f2e7 u0 Splash Screen com.android.settings}",
			"Splash Screen com.android.settings", "com.android.settings", ""},
		{"no hash", "mCurrentFocus=Window{com.android.settings/com.android.settings.Settings}",
			"com.android.settings/com.android.settings.Settings", "com.android.settings", "com.android.settings.Settings"},
		{"system window, no package", "  mCurrentFocus=Window{9e1b2a4 u0 NotificationShade}", "NotificationShade", "", ""},
		{"popup, no package", "  mCurrentFocus=Window{7d2c1b0 u0 PopupWindow:5f1e2d3}", "PopupWindow:5f1e2d3", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, err := Window(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			got := [3]string{w.FocusedWindow, w.FocusedPackage, w.FocusedActivity}
			if diff := cmp.Diff([3]string{tt.window, tt.pkg, tt.act}, got); diff != "" {
				t.Errorf("window, package, activity (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWindowMultiDisplay: `dumpsys window` prints a focused window and app
// per display, in WindowManager's order (not by id); the display with input
// focus (mTopFocusedDisplayId) wins, else display 0. Rotation is display 0's.
func TestWindowMultiDisplay(t *testing.T) {
	t.Parallel()
	block := func(id, rot int, focus, app string) string {
		return fmt.Sprintf("  Display: mDisplayId=%d rootTasks=1\n  mCurrentFocus=%s\n  mFocusedApp=%s\n    DisplayRotation\n      mRotation=%d mDeferredRotationPauseCount=0\n", id, focus, app, rot)
	}
	cover := block(1, 1, "Window{7a1 u0 com.android.systemui/com.android.systemui.subscreen.SubHomeActivity}",
		"ActivityRecord{7a2 u0 com.android.systemui/.subscreen.SubHomeActivity t9}")
	main := block(0, 0, "Window{5c4 u0 com.android.settings/com.android.settings.Settings}",
		"ActivityRecord{5c5 u0 com.android.settings/.Settings t12}")
	mainNoFocus := block(0, 0, "null", "ActivityRecord{5c5 u0 com.android.settings/.Settings t12}")
	mainNull := block(0, 0, "null", "null")
	windows := "WINDOW MANAGER WINDOWS (dumpsys window windows)\n  mHasPermanentDpad=false\n  mTopFocusedDisplayId=%d\n"
	tests := []struct {
		name, in        string
		pkg, act, win   string
		display, rotate int
	}{
		{"main display after cover", cover + main, "com.android.settings", "com.android.settings.Settings",
			"com.android.settings/com.android.settings.Settings", 0, 0},
		{"main display has input focus", cover + main + fmt.Sprintf(windows, 0), "com.android.settings", "com.android.settings.Settings",
			"com.android.settings/com.android.settings.Settings", 0, 0},
		{"cover display has input focus", cover + main + fmt.Sprintf(windows, 1), "com.android.systemui", "com.android.systemui.subscreen.SubHomeActivity",
			"com.android.systemui/com.android.systemui.subscreen.SubHomeActivity", 1, 0},
		{"main display: app without focused window", cover + mainNoFocus, "com.android.settings", "com.android.settings.Settings", "", 0, 0},
		{"main display empty", cover + mainNull, "com.android.systemui", "com.android.systemui.subscreen.SubHomeActivity",
			"com.android.systemui/com.android.systemui.subscreen.SubHomeActivity", 1, 0},
		{"focused display empty", cover + main + fmt.Sprintf(windows, 4), "com.android.settings", "com.android.settings.Settings",
			"com.android.settings/com.android.settings.Settings", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, err := Window(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			want := WindowState{FocusedWindow: tt.win, FocusedPackage: tt.pkg, FocusedActivity: tt.act,
				FocusedDisplay: tt.display, Rotation: tt.rotate, RotationKnown: true}
			if diff := cmp.Diff(want, w); diff != "" {
				t.Errorf("Window (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBatteryVendorLines: vendor builds (Samsung's BatteryService) print
// unindented and one-space-indented lines inside the "Current Battery
// Service state:" block; none of them may hide the standard keys.
func TestBatteryVendorLines(t *testing.T) {
	t.Parallel()
	const std = "  AC powered: false\n  USB powered: true\n  status: 2\n  health: 2\n  present: true\n  level: 61\n  scale: 100\n  voltage: 4012\n  temperature: 301\n  technology: Li-ion\n"
	want := BatteryState{Level: 61, Scale: 100, Status: "charging", Plugged: "usb", Temperature: 30.1,
		Health: "good", Present: true, VoltageMV: 4012, Technology: "Li-ion"}
	tests := []struct{ name, in string }{
		{"unindented vendor line first", "Current Battery Service state:\nFEATURE_WIRELESS_FAST_CHARGER_CONTROL: true\n" + std},
		{"unindented vendor lines between", "Current Battery Service state:\n  AC powered: false\n  USB powered: true\nLLB CAL: 20240328\nLLB MAN: \n" +
			"  status: 2\n  health: 2\n  present: true\n  level: 61\n  scale: 100\n  voltage: 4012\n  temperature: 301\n  technology: Li-ion\n"},
		{"one-space vendor line", "Current Battery Service state:\n Time when the latest updated value of the voltage was sent via battery changed broadcast: 0\n" + std},
		{"vendor section after, keys repeated", "Current Battery Service state:\n" + std + "[BattActionChangedLogBuffer]\n  level: 12\n  status: 3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Battery(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Battery (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFormatErrorTyped: a caller can tell which output could not be read
// (and degrade that one field) with errors.As, and still errors.Is ErrFormat.
func TestFormatErrorTyped(t *testing.T) {
	t.Parallel()
	_, err := Battery("Current Battery Service state:\n  status: 2\n")
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Output != "dumpsys battery" || !errors.Is(err, ErrFormat) {
		t.Fatalf("Battery error %v (%T): want a *FormatError for dumpsys battery wrapping ErrFormat", err, err)
	}
	if want := "parse dumpsys battery: no level: unrecognized command output"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

// TestWindowRotationSources: the display's rotation is DisplayRotation's
// numeric mRotation=; the mCurrentRotation=ROTATION_<deg> that AOSP
// WindowOrientationListener.dump prints under it is the sensor's opinion
// (it differs while rotation is locked), read only when nothing else is.
func TestWindowRotationSources(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     int
	}{
		{"mRotation beats the orientation listener",
			"  DisplayRotation\n    mRotation=0 mDeferredRotationPauseCount=0\n    WindowOrientationListener\n      mCurrentRotation=ROTATION_90\n", 0},
		{"orientation listener alone", "    WindowOrientationListener\n      mCurrentRotation=ROTATION_270\n", 3},
		{"winConfig enum is not the display's", "  overrideConfig={ winConfig={ mDisplayRotation=ROTATION_90 mRotation=ROTATION_90}}\n  DisplayRotation\n    mRotation=2 mDeferredRotationPauseCount=0\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, err := Window(tt.in)
			if err != nil || !w.RotationKnown || w.Rotation != tt.want {
				t.Fatalf("Window = rotation %d known %v, %v; want %d", w.Rotation, w.RotationKnown, err, tt.want)
			}
		})
	}
}
