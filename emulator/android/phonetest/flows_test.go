package phonetest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
	"github.com/google/go-cmp/cmp"
)

// tapOn taps the centre of the first node matching pred.
func tapOn(t *testing.T, d *android.Device, pred func(*ui.Element) bool) {
	t.Helper()
	n := phonekit.FindNode(t, d, pred)
	if n == nil {
		t.Fatalf("node not on screen (%s)", d.ScreenID())
	}
	c := n.B.Min.Add(n.B.Max).Div(2)
	mustRun(t, d, fmt.Sprintf("input tap %d %d", c.X, c.Y))
}

func TestLauncherSettingsWifiFlow(t *testing.T) {
	d := newDevice(t, android.Config{})
	phonekit.WantForeground(t, d, "com.google.android.apps.nexuslauncher")
	tapOn(t, d, phonekit.ByText("Settings"))
	phonekit.WantForeground(t, d, "com.android.settings")
	tapOn(t, d, phonekit.ByText("Network & internet"))
	if d.ScreenID() != "wifi" {
		t.Fatalf("screen %q, want wifi", d.ScreenID())
	}
	sw := phonekit.FindNode(t, d, phonekit.ByID("android:id/switch_widget"))
	if !sw.Checked {
		t.Fatal("Wi-Fi switch should start checked")
	}
	before := d.Screenshot()
	tapOn(t, d, phonekit.ByID("android:id/switch_widget"))
	if v := strings.TrimSpace(mustRun(t, d, "settings get global wifi_on")); v != "0" {
		t.Fatalf("wifi_on = %q after toggle, want 0", v)
	}
	if phonekit.FindNode(t, d, phonekit.ByID("android:id/switch_widget")).Checked {
		t.Fatal("switch still checked in dump")
	}
	if bytes.Equal(before.Pix, d.Screenshot().Pix) {
		t.Fatal("screenshot did not change after toggle")
	}
	mustRun(t, d, "input keyevent KEYCODE_BACK")
	if d.ScreenID() != "settings" {
		t.Fatalf("after BACK screen %q, want settings", d.ScreenID())
	}
	mustRun(t, d, "input keyevent 4")
	phonekit.WantForeground(t, d, "com.google.android.apps.nexuslauncher")
	// Relaunch, then HOME keeps nothing of the launcher's state in front.
	mustRun(t, d, "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1")
	phonekit.WantForeground(t, d, "com.android.settings")
	mustRun(t, d, "input keyevent HOME")
	phonekit.WantForeground(t, d, "com.google.android.apps.nexuslauncher")
}

func TestLoginFlow(t *testing.T) {
	d := newDevice(t, android.Config{Scenario: "login"})
	phonekit.WantForeground(t, d, "com.example.login")
	// Submitting empty fields shows the error screen.
	tapOn(t, d, phonekit.ByID("com.example.login:id/submit"))
	if d.ScreenID() != "login_error" {
		t.Fatalf("screen %q, want login_error", d.ScreenID())
	}
	mustRun(t, d, "input keyevent BACK")

	tapOn(t, d, phonekit.ByID("com.example.login:id/username"))
	if n := phonekit.FindNode(t, d, phonekit.ByID("com.example.login:id/username")); !n.Focused {
		t.Fatal("username not focused after tap")
	}
	mustRun(t, d, "input text 'alice'")
	tapOn(t, d, phonekit.ByID("com.example.login:id/password"))
	mustRun(t, d, `input text 's3cr%set'`)
	if got := d.FieldText("com.example.login:id/password"); got != "s3cr et" {
		t.Fatalf("password field %q", got)
	}
	pw := phonekit.FindNode(t, d, phonekit.ByID("com.example.login:id/password"))
	if strings.Contains(pw.Text, "s3cr") || pw.Text != strings.Repeat("•", 7) {
		t.Fatalf("password shown as %q in dump", pw.Text)
	}
	mustRun(t, d, "input keyevent KEYCODE_DEL")
	tapOn(t, d, phonekit.ByText("SIGN IN"))
	if d.ScreenID() != "welcome" {
		t.Fatalf("screen %q, want welcome", d.ScreenID())
	}
	if phonekit.FindNode(t, d, phonekit.ByText("Welcome, alice!")) == nil {
		t.Fatal("greeting missing")
	}
	_, act := d.Foreground()
	if act != "com.example.login.WelcomeActivity" {
		t.Fatalf("activity %s", act)
	}
}

func TestLoginSubmitWithEnter(t *testing.T) {
	d := newDevice(t, android.Config{Scenario: "login"})
	tapOn(t, d, phonekit.ByID("com.example.login:id/username"))
	mustRun(t, d, "input text bob")
	tapOn(t, d, phonekit.ByID("com.example.login:id/password"))
	mustRun(t, d, "input text pw && input keyevent 66")
	if d.ScreenID() != "welcome" {
		t.Fatalf("screen %q, want welcome", d.ScreenID())
	}
}

// TestGreetingTemplateInTypedText checks typed text that itself looks like
// a ${resource-id} template is shown as typed, not expanded again (which
// looped for ever under the device lock).
func TestGreetingTemplateInTypedText(t *testing.T) {
	d := newDevice(t, android.Config{Scenario: "login"})
	tapOn(t, d, phonekit.ByID("com.example.login:id/username"))
	mustRun(t, d, `input text '${com.example.login:id/username}${x'`)
	tapOn(t, d, phonekit.ByID("com.example.login:id/password"))
	mustRun(t, d, "input text pw && input keyevent 66")
	if d.ScreenID() != "welcome" {
		t.Fatalf("screen %q, want welcome", d.ScreenID())
	}
	if phonekit.FindNode(t, d, phonekit.ByText("Welcome, ${com.example.login:id/username}${x!")) == nil {
		t.Fatal("greeting missing")
	}
}

func TestListScroll(t *testing.T) {
	d := newDevice(t, android.Config{Scenario: "list"})
	if phonekit.FindNode(t, d, phonekit.ByText("Item 1")) == nil || phonekit.FindNode(t, d, phonekit.ByText("Item 20")) != nil {
		t.Fatal("initial list should show Item 1 and not Item 20")
	}
	mustRun(t, d, "input swipe 360 1100 360 300 0")
	if phonekit.FindNode(t, d, phonekit.ByText("Item 1")) != nil || phonekit.FindNode(t, d, phonekit.ByText("Item 12")) == nil {
		t.Fatal("after one swipe up Item 1 should be gone and Item 12 shown")
	}
	for range 20 {
		mustRun(t, d, "input touchscreen swipe 360 1100 360 200 0")
	}
	if phonekit.FindNode(t, d, phonekit.ByText("Item 100")) == nil {
		t.Fatal("list end not reached")
	}
	last := phonekit.FindNode(t, d, phonekit.ByText("Item 100"))
	if last.B.Max.Y != 1280 {
		t.Fatalf("last row bounds %v: list over-scrolled", last.B)
	}
	for range 30 {
		mustRun(t, d, "input swipe 360 300 360 1200 0")
	}
	if phonekit.FindNode(t, d, phonekit.ByText("Item 1")) == nil {
		t.Fatal("scrolling back did not return to the top")
	}
	tapOn(t, d, phonekit.ByText("Item 3"))
	if d.ScreenID() != "detail" {
		t.Fatalf("tap on a row: screen %q", d.ScreenID())
	}
}

func rawHeader(t *testing.T, raw []byte, n int) []uint32 {
	t.Helper()
	h := make([]uint32, n)
	if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, h); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestScreencapRawAndPNG(t *testing.T) {
	for _, tc := range []struct {
		sdk, hdr int
	}{{33, 16}, {28, 16}, {27, 12}} {
		t.Run(fmt.Sprint("sdk", tc.sdk), func(t *testing.T) {
			d := newDevice(t, android.Config{SDK: tc.sdk, Scenario: "login"})
			raw := []byte(mustRun(t, d, "screencap"))
			h := rawHeader(t, raw, tc.hdr/4)
			if h[0] != 720 || h[1] != 1280 || h[2] != 1 {
				t.Fatalf("header %v", h)
			}
			if len(raw) != tc.hdr+720*1280*4 {
				t.Fatalf("raw size %d", len(raw))
			}
			shot := d.Screenshot()
			if !bytes.Equal(raw[tc.hdr:], shot.Pix) {
				t.Fatal("raw pixels differ from the rendering")
			}
			img, err := png.Decode(strings.NewReader(mustRun(t, d, "screencap -p")))
			if err != nil {
				t.Fatal(err)
			}
			got := image.NewRGBA(img.Bounds())
			draw.Draw(got, got.Rect, img, image.Point{}, draw.Src)
			if !bytes.Equal(got.Pix, shot.Pix) {
				t.Fatal("PNG differs from the rendering")
			}
			// Pixels agree with the dump: the submit button is drawn in the accent colour.
			b := phonekit.FindNode(t, d, phonekit.ByID("com.example.login:id/submit")).B
			if c := shot.RGBAAt(b.Min.X+3, b.Min.Y+3); c != ui.Accent {
				t.Fatalf("button pixel %v, want %v", c, ui.Accent)
			}
			mustRun(t, d, "screencap -p /sdcard/s.png")
			f, err := d.FS().ReadFile("/sdcard/s.png")
			if err != nil || !bytes.HasPrefix(f, []byte("\x89PNG")) {
				t.Fatalf("screencap file: %v", err)
			}
		})
	}
}

func TestRotation(t *testing.T) {
	d := newDevice(t, android.Config{})
	mustRun(t, d, "settings put system user_rotation 1")
	if d.Rotation() != 1 {
		t.Fatalf("rotation %d", d.Rotation())
	}
	h := rawHeader(t, []byte(mustRun(t, d, "screencap")), 4)
	if h[0] != 1280 || h[1] != 720 {
		t.Fatalf("landscape header %v", h)
	}
	out := mustRun(t, d, "uiautomator dump /dev/tty")
	if !strings.Contains(out, `<hierarchy rotation="1">`) || !strings.Contains(out, `bounds="[0,0][1280,720]"`) {
		t.Fatalf("dump not landscape: %.300s", out)
	}
	tapOn(t, d, phonekit.ByText("Settings")) // landscape coordinates map back
	phonekit.WantForeground(t, d, "com.android.settings")
	if err := d.SetRotation(4); err == nil {
		t.Fatal("rotation 4 accepted")
	}
}

func TestKeyguardAndPower(t *testing.T) {
	d := newDevice(t, android.Config{})
	mustRun(t, d, "input keyevent POWER")
	if d.ScreenOn() {
		t.Fatal("POWER did not turn the screen off")
	}
	if px := d.Screenshot().RGBAAt(10, 10); px != ui.Black {
		t.Fatalf("screen off pixel %v", px)
	}
	d.SetLocked(true)
	mustRun(t, d, "input keyevent KEYCODE_WAKEUP")
	if phonekit.FindNode(t, d, phonekit.ByID("com.android.systemui:id/keyguard_clock")) == nil {
		t.Fatal("keyguard not shown")
	}
	if !strings.Contains(mustRun(t, d, "dumpsys window"), "      showing=true") {
		t.Fatal("dumpsys window does not report the keyguard")
	}
	mustRun(t, d, "input tap 100 100") // ignored while locked
	mustRun(t, d, "input swipe 360 1100 360 300 100")
	if d.Locked() {
		t.Fatal("swipe up did not unlock")
	}
	d.SetLocked(true)
	mustRun(t, d, "input keyevent 82")
	if d.Locked() {
		t.Fatal("MENU did not unlock")
	}
}

func TestAmStartVariants(t *testing.T) {
	d := newDevice(t, android.Config{})
	mustRun(t, d, "am start -a android.intent.action.VIEW -d https://example.org")
	phonekit.WantForeground(t, d, "com.android.chrome")
	mustRun(t, d, "am start -n com.example.login/.LoginActivity && input keyevent HOME")
	mustRun(t, d, "am start -n com.example.login/.WelcomeActivity")
	if d.ScreenID() != "welcome" {
		t.Fatalf("am start -n of a second activity: screen %q", d.ScreenID())
	}
	mustRun(t, d, "am force-stop com.example.login")
	if pkg, _ := d.Foreground(); pkg == "com.example.login" {
		t.Fatal("force-stop left the app in front")
	}
	mustRun(t, d, "am start -S -W com.example.list")
	phonekit.WantForeground(t, d, "com.example.list")
}

func TestWmSizeOverrideChangesScreen(t *testing.T) {
	d := newDevice(t, android.Config{})
	mustRun(t, d, "wm size 360x640")
	if b := d.Screenshot().Rect; b != image.Rect(0, 0, 360, 640) {
		t.Fatalf("screenshot %v after wm size", b)
	}
	mustRun(t, d, "wm size reset")
	if diff := cmp.Diff("Physical size: 720x1280\n", mustRun(t, d, "wm size")); diff != "" {
		t.Fatal(diff)
	}
}

func TestADBKeyboardUnicode(t *testing.T) {
	d := newDevice(t, android.Config{Scenario: "login"})
	tapOn(t, d, phonekit.ByID("com.example.login:id/username"))
	// Before the IME is selected, broadcasts do nothing.
	mustRun(t, d, "am broadcast -a ADB_INPUT_TEXT --es msg 'x'")
	if got := d.FieldText("com.example.login:id/username"); got != "" {
		t.Fatalf("typed %q without the IME", got)
	}
	if got := mustRun(t, d, "ime list -s"); !strings.Contains(got, "com.android.adbkeyboard/.AdbIME\n") {
		t.Fatalf("ime list %q", got)
	}
	mustRun(t, d, "ime enable com.android.adbkeyboard/.AdbIME && ime set com.android.adbkeyboard/.AdbIME")
	out := mustRun(t, d, "am broadcast -a ADB_INPUT_TEXT --es msg 'Grüße 😀'")
	if out != "Broadcasting: Intent { act=ADB_INPUT_TEXT flg=0x400000 (has extras) }\nBroadcast completed: result=0\n" {
		t.Fatalf("broadcast output %q", out)
	}
	mustRun(t, d, "am broadcast -a ADB_INPUT_B64 --es msg IQ==") // "!"
	if got := d.FieldText("com.example.login:id/username"); got != "Grüße 😀!" {
		t.Fatalf("field %q", got)
	}
	mustRun(t, d, "am broadcast -a ADB_CLEAR_TEXT")
	if got := d.FieldText("com.example.login:id/username"); got != "" {
		t.Fatalf("field after clear %q", got)
	}
}

func TestScreenOverride(t *testing.T) {
	d := newDevice(t, android.Config{Screen: ui.ScreenSpec{Width: 1080, Height: 1920, Density: 480}})
	if got := mustRun(t, d, "wm size; wm density; getprop ro.sf.lcd_density"); got != "Physical size: 1080x1920\nPhysical density: 480\n480\n" {
		t.Fatalf("got %q", got)
	}
	if b := d.Screenshot().Rect; b.Dx() != 1080 || b.Dy() != 1920 {
		t.Fatalf("screenshot %v", b)
	}
	tapOn(t, d, phonekit.ByText("Settings")) // scaled layout still hit-tests
	phonekit.WantForeground(t, d, "com.android.settings")
}

func TestClearFieldWithSelectAll(t *testing.T) {
	d := newDevice(t, android.Config{Scenario: "login"})
	tapOn(t, d, phonekit.ByID("com.example.login:id/username"))
	mustRun(t, d, "input text old")
	mustRun(t, d, "input keycombination KEYCODE_CTRL_LEFT KEYCODE_A && input keyevent DEL && input text new")
	if got := d.FieldText("com.example.login:id/username"); got != "new" {
		t.Fatalf("field %q", got)
	}
	mustRun(t, d, "input keyevent KEYCODE_MOVE_END 67 67 67 67")
	if got := d.FieldText("com.example.login:id/username"); got != "" {
		t.Fatalf("field after DELs %q", got)
	}
}
