package devices_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/devices"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"github.com/adb-connector/adb-connector/emulator/phonefw"
)

const helperLine = "CLASSPATH=/data/local/tmp/adbc-helper-0123456789abcdef.jar app_process / com.adbconnector.helper.Main"

func pushJar(t *testing.T, d *android.Device) {
	t.Helper()
	if err := d.FS().WriteFile("/data/local/tmp/adbc-helper-0123456789abcdef.jar", []byte("PK jar"), 0o644, phonekit.FixedNow()); err != nil {
		t.Fatal(err)
	}
}

// TestAppProcessCannotStart: without the jar ART cannot find the class;
// with it but no runtime for it (no android.Config.AppProcess, or the runner
// cannot start) app_process aborts, as on a phone where it cannot start.
func TestAppProcessCannotStart(t *testing.T) {
	d := newDevice(t, android.Config{Scenario: "login"})
	_, e, st := run(t, d, helperLine)
	if st != 1 || !strings.Contains(e, `java.lang.ClassNotFoundException: Didn't find class "com.adbconnector.helper.Main"`) {
		t.Fatalf("no jar: status %d stderr %q", st, e)
	}
	pushJar(t, d)
	if _, e, st := run(t, d, helperLine); st != 134 || e != "Aborted \n" {
		t.Fatalf("no runtime: status %d stderr %q", st, e)
	}
	if _, e, st := run(t, d, "app_process /"); st != 134 || !strings.Contains(e, "no class name") {
		t.Fatalf("no class: status %d stderr %q", st, e)
	}
	d = newDevice(t, android.Config{Scenario: "login", AppProcess: func(context.Context, phonefw.Spec) (int, error) {
		return 0, phonefw.ErrNoTools
	}})
	pushJar(t, d)
	if _, e, st := run(t, d, helperLine); st != 134 || e != "Aborted \n" {
		t.Fatalf("runner cannot start: status %d stderr %q", st, e)
	}
}

// TestAppProcessPhone: the runner gets the pushed jar, the class and
// CLASSPATH, and the phone it is given acts on this device as `input`
// and the accessibility actions would.
func TestAppProcessPhone(t *testing.T) {
	var spec phonefw.Spec
	d := newDevice(t, android.Config{Scenario: "login", AppProcess: func(ctx context.Context, s phonefw.Spec) (int, error) {
		spec = s
		p := s.Phone
		if err := p.Connect(1); err != nil {
			return 0, err
		}
		defer p.Disconnect()
		if !strings.Contains(string(p.Dump()), "com.example.login:id/username") {
			return 3, nil
		}
		// Tap the username field, then set its text through its node
		// (window 0, child 1).
		p.Motion(ctx, phonefw.Motion{Action: phonefw.MotionDown, Source: phonefw.SourceTouchscreen, DownTime: 1, Event: 1, X: []float64{360}, Y: []float64{250}})
		p.Motion(ctx, phonefw.Motion{Action: phonefw.MotionUp, Source: phonefw.SourceTouchscreen, DownTime: 1, Event: 2, X: []float64{360}, Y: []float64{250}})
		if !p.Action([]int{0, 1}, phonefw.ActionSetText, "李雷", "") || p.Action([]int{0, 0}, phonefw.ActionSetText, "x", "") {
			return 4, nil
		}
		p.ClipSet("剪贴")
		if !p.Action([]int{0, 1}, phonefw.ActionPaste, "", "") {
			return 5, nil
		}
		return 0, nil
	}})
	pushJar(t, d)
	if _, e, st := run(t, d, helperLine); st != 0 {
		t.Fatalf("status %d stderr %q", st, e)
	}
	if spec.Main != "com.adbconnector.helper.Main" || string(spec.Jar) != "PK jar" || spec.SDK != 33 ||
		len(spec.Env) != 1 || spec.Env[0] != "CLASSPATH=/data/local/tmp/adbc-helper-0123456789abcdef.jar" {
		t.Fatalf("spec %+v", spec)
	}
	if got := d.FieldText("com.example.login:id/username"); got != "李雷剪贴" {
		t.Fatalf("username %q", got)
	}
	if d.HelperConnected() {
		t.Fatal("slot still held")
	}
	var touches, helper int
	for _, c := range d.Commands() {
		if c.Touch != nil && c.Touch.Kind == "tap" && c.Touch.Node == "helper:injectInputEvent" {
			touches++
		}
		if c.Helper != "" {
			helper++
			if strings.Contains(c.Helper, "李雷") {
				t.Fatal("typed text in the command log")
			}
		}
	}
	if touches != 1 || helper != 2 {
		t.Fatalf("logged %d helper taps and %d helper actions", touches, helper)
	}
}

// TestUiAutomationSlot: one holder at a time. Another owner
// (android.Config.UiAutomationHeld) makes the helper's connect fail; a helper that
// holds the slot makes `uiautomator dump` fail as UiAutomationManager does.
func TestUiAutomationSlot(t *testing.T) {
	held := make(chan struct{})
	release := make(chan struct{})
	d := newDevice(t, android.Config{Scenario: "login", UiAutomationHeld: true, AppProcess: func(ctx context.Context, s phonefw.Spec) (int, error) {
		if err := s.Phone.Connect(0); err != nil {
			if errors.Is(err, phonefw.ErrBusy) {
				return 7, nil
			}
			return 8, nil
		}
		close(held)
		<-release
		s.Phone.Disconnect()
		return 0, nil
	}})
	pushJar(t, d)
	if _, _, st := run(t, d, helperLine); st != 7 {
		t.Fatalf("connect with the slot held elsewhere: status %d, want 7 (busy)", st)
	}
	d.SetUiAutomationHeld(false)
	done := make(chan int)
	go func() {
		_, _, st := run(t, d, helperLine)
		done <- st
	}()
	select {
	case <-held:
	case <-time.After(20 * time.Second):
		t.Fatal("helper never connected")
	}
	_, e, st := run(t, d, "uiautomator dump /dev/tty")
	if st != 1 || !strings.Contains(e, "already registered!") {
		t.Fatalf("uiautomator dump while the helper holds the slot: status %d stderr %q", st, e)
	}
	close(release)
	if st := <-done; st != 0 {
		t.Fatalf("helper status %d", st)
	}
	if o := mustRun(t, d, "uiautomator dump /dev/tty"); !strings.Contains(o, "<hierarchy") {
		t.Fatalf("dump after the helper left: %q", o)
	}
}

// TestAppProcessCosts: the helper's costs are charged to the app_process
// command (HelperCost of the profile): its start, a tree by node count,
// each injected event.
func TestAppProcessCosts(t *testing.T) {
	nodes := 0
	d := newDevice(t, android.Config{Scenario: "login", Profile: "pixel-usb", AppProcess: func(ctx context.Context, s phonefw.Spec) (int, error) {
		nodes = strings.Count(string(s.Phone.Dump()), "<node ")
		for _, a := range []int{phonefw.MotionDown, phonefw.MotionUp} {
			s.Phone.Motion(ctx, phonefw.Motion{Action: a, DownTime: 1, Event: 1, X: []float64{1}, Y: []float64{1}})
		}
		return 0, nil
	}})
	pushJar(t, d)
	if _, e, st := run(t, d, helperLine); st != 0 {
		t.Fatalf("status %d %q", st, e)
	}
	// The start is paid while the program starts: what the runner took
	// itself is not charged again, so the charge is bounded by the model.
	c := devices.HelperCosts["pixel-usb"]
	work := c.TreeBase + time.Duration(nodes)*c.TreePerNode + 2*c.Inject
	var got time.Duration
	for _, cmd := range d.Commands() {
		if strings.Contains(cmd.Line, "app_process") {
			got = cmd.Charged
		}
	}
	vm := d.Profile().StartCost("app_process") // the shell's charge for the VM
	if nodes == 0 || got <= work+vm || got > work+vm+c.Start {
		t.Fatalf("charged %v for %d nodes, want within (%v, %v]", got, nodes, work+vm, work+vm+c.Start)
	}
}
