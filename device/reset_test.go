package device

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/descriptor"
	"github.com/adb-connector/adb-connector/device/reset"
)

// waitFor waits, on the Service's change signal, until cond holds.
func (e *svcEnv) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	timer := time.NewTimer(setupWait)
	defer timer.Stop()
	for {
		upd := e.svc.Updated()
		if cond() {
			return
		}
		select {
		case <-upd:
		case <-timer.C:
			t.Fatalf("no %s within %s", what, setupWait)
		}
	}
}

// waitResetEnd waits until no reset runs on key and returns what key owes.
func (e *svcEnv) waitResetEnd(t *testing.T, key string) []binding.Reset {
	t.Helper()
	e.waitFor(t, "reset end", func() bool { return !e.svc.resets.Running(key) })
	owed, err := e.svc.bindings.Resets(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return owed
}

// lines lists the command lines the virtual phone ran since from.
func lines(e *svcEnv, from int) []string {
	var out []string
	for _, c := range e.adbEnv.Devices[0].Android().Commands()[from:] {
		out = append(out, c.Line)
	}
	return out
}

// TestResetOnRelease: a logout resets the phone (home, the app the binding
// launched stopped, the connector's files deleted) before it is free, with
// an audit row; a failed reset (every command failing) marks the phone
// needs-reset, refused to the next channel until a retry succeeds.
func TestResetOnRelease(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 1, nil)
	key := e.key(0)
	phone := e.adbEnv.Devices[0].Android()
	e.waitPresence(t, key, descriptor.PresenceOnline)
	e.pair(t, "cch_a", key)
	e.waitFor(t, "baseline", func() bool {
		return e.svc.resets.HasBaseline(key)
	})
	d, err := e.client.Device(key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Launch(t.Context(), "com.android.chrome", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Shell(t.Context(), "touch", "/data/local/tmp/adbc-rec-0123.mp4"); err != nil {
		t.Fatal(err)
	}
	from := len(phone.Commands())
	if _, err := e.svc.AuthLogout(t.Context(), connector.Channel{ID: "cch_a"}, nil); err != nil {
		t.Fatal(err)
	}
	if owed := e.waitResetEnd(t, key); len(owed) != 0 {
		t.Fatalf("after a good reset the device owes %+v", owed)
	}
	ran := lines(e, from)
	for _, want := range []string{"input keyevent KEYCODE_HOME", "am force-stop com.android.chrome", "rm -f /data/local/tmp/adbc-*"} {
		if !slices.Contains(ran, want) {
			t.Errorf("reset did not run %q; ran %q", want, ran)
		}
	}
	for _, l := range ran {
		if strings.Contains(l, "force-stop") && !strings.Contains(l, "chrome") {
			t.Errorf("reset stopped an app the binding did not launch: %q", l)
		}
	}
	if pkg, _ := phone.Foreground(); pkg != "com.google.android.apps.nexuslauncher" {
		t.Errorf("in front after the reset: %s", pkg)
	}
	if _, err := d.Shell(t.Context(), "ls", "/data/local/tmp/adbc-rec-0123.mp4"); err == nil {
		t.Error("the connector's file survived the reset")
	}
	var outcome, args string
	if err := e.db.Read.QueryRowContext(t.Context(), `SELECT outcome, args FROM tool_audit WHERE tool_id = 'reset' AND channel_id = 'cch_a'`).
		Scan(&outcome, &args); err != nil || outcome != "ok" || !strings.Contains(args, `"reason":"logout"`) || !strings.Contains(args, `"force_stopped":1`) {
		t.Errorf("reset audit row %q %s %v", outcome, args, err)
	}

	// A reset that fails leaves the device needs-reset.
	e.pair(t, "cch_b", key)
	phone.FailNext(1000)
	if _, err := e.op.Unbind(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	owed := e.waitResetEnd(t, key)
	if len(owed) != 1 || owed[0].Status != binding.ResetFailed || owed[0].Reason != binding.ReasonUnbind || owed[0].Error == "" {
		t.Fatalf("after a failed reset: %+v", owed)
	}
	rows, err := e.op.Devices(t.Context())
	if err != nil || len(rows) != 1 || rows[0].Reset != "needs-reset" {
		t.Errorf("devices = %+v %v", rows, err)
	}
	r, err := e.svc.AuthStart(t.Context(), connector.Channel{ID: "cch_c"}, startRequest)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := authReplyAck(t, r)
	if _, err := e.op.Approve(t.Context(), a.QRCodeText, key, false); err == nil || !strings.Contains(err.Error(), "needs a reset") {
		t.Errorf("approval of a needs-reset device = %v", err)
	}
	phone.FailNext(0)
	e.svc.resets.Claim(key) // what the device's return or the retry timer does
	if owed := e.waitResetEnd(t, key); len(owed) != 0 {
		t.Fatalf("after a good retry the device owes %+v", owed)
	}
	if _, err := e.op.Approve(t.Context(), a.QRCodeText, key, false); err != nil {
		t.Errorf("approval after the retry: %v", err)
	}
}

// TestResetPolicySteps: only the policy's steps run: listed packages are
// cleared (one the phone lacks is skipped), the screen goes off, and no
// HOME, force-stop or file removal when the policy leaves them out.
func TestResetPolicySteps(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 1, func(c *ServiceConfig) {
		c.Lease = func(string) LeasePolicy {
			return LeasePolicy{Reset: reset.Policy{ClearPackages: []string{"com.example.login", "com.example.absent"}, ScreenOff: true}}
		}
	})
	key := e.key(0)
	phone := e.adbEnv.Devices[0].Android()
	e.waitPresence(t, key, descriptor.PresenceOnline)
	e.pair(t, "cch_a", key)
	from := len(phone.Commands())
	if _, err := e.svc.AuthLogout(t.Context(), connector.Channel{ID: "cch_a"}, nil); err != nil {
		t.Fatal(err)
	}
	if owed := e.waitResetEnd(t, key); len(owed) != 0 {
		t.Fatalf("owes %+v", owed)
	}
	ran := strings.Join(lines(e, from), "\n")
	for _, want := range []string{"pm clear com.example.login", "input keyevent KEYCODE_SLEEP"} {
		if !strings.Contains(ran, want) {
			t.Errorf("reset did not run %q:\n%s", want, ran)
		}
	}
	for _, not := range []string{"pm clear com.example.absent", "KEYCODE_HOME", "force-stop", "rm -f"} {
		if strings.Contains(ran, not) {
			t.Errorf("reset ran %q, which the policy leaves out:\n%s", not, ran)
		}
	}
	if phone.ScreenOn() {
		t.Error("screen still on after a screen_off reset")
	}
}
