package adb

import (
	"bytes"
	"errors"
	"image/png"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/emulator"
)

// opsEnv starts adbtest (real adb server + one virtual phone, launcher
// scenario) and returns a handle for the phone.
func opsEnv(t *testing.T) (*adbtest.Env, *emulator.Device, *Device) {
	t.Helper()
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	c := newTestClient(t, Config{NoTracking: true, Endpoints: []string{env.ServerAddr}})
	vd := env.Devices[0]
	d, err := c.Device(DeviceKey(env.ServerAddr, vd.Serial()))
	if err != nil {
		t.Fatal(err)
	}
	return env, vd, d
}

func TestOpsQueries(t *testing.T) {
	_, vd, d := opsEnv(t)
	ctx := t.Context()
	t.Run("properties cached", func(t *testing.T) {
		p, err := d.Properties(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if p["ro.product.model"] == "" || p["ro.build.version.sdk"] == "" {
			t.Fatalf("props = %v", p)
		}
		p["ro.product.model"] = "mutated"
		p2, _ := d.Properties(ctx, false)
		if p2["ro.product.model"] == "mutated" {
			t.Error("cache shared with caller")
		}
	})
	t.Run("screen info", func(t *testing.T) {
		si, err := d.ScreenInfo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if si.Width != 720 || si.Height != 1280 || si.Density != 320 || !si.RotationKnown || si.Rotation != 0 {
			t.Errorf("screen = %+v", si)
		}
		if err := vd.Android().SetRotation(1); err != nil {
			t.Fatal(err)
		}
		si, err = d.ScreenInfo(ctx)
		if err != nil || si.Rotation != 1 {
			t.Errorf("after rotation: %+v %v", si, err)
		}
		_ = vd.Android().SetRotation(0)
	})
	t.Run("power", func(t *testing.T) {
		ps, err := d.Power(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !ps.ScreenOn || ps.Locked {
			t.Errorf("power = %+v", ps)
		}
		vd.Android().SetLocked(true)
		ps, err = d.Power(ctx)
		if err != nil || !ps.Locked || !ps.LockKnown {
			t.Errorf("locked: %+v %v", ps, err)
		}
		vd.Android().SetLocked(false)
		vd.Android().SetScreenOn(false)
		ps, err = d.Power(ctx)
		if err != nil || ps.ScreenOn {
			t.Errorf("screen off: %+v %v", ps, err)
		}
		vd.Android().SetScreenOn(true)
	})
	t.Run("battery", func(t *testing.T) {
		b, err := d.Battery(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b.Level <= 0 || b.Scale != 100 {
			t.Errorf("battery = %+v", b)
		}
	})
	t.Run("foreground", func(t *testing.T) {
		pkg, act, err := d.ForegroundApp(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wp, wa := vd.Android().Foreground()
		if pkg != wp || act == "" {
			t.Errorf("foreground = %s/%s, device says %s/%s", pkg, act, wp, wa)
		}
	})
	t.Run("logcat", func(t *testing.T) {
		lines, err := d.Logcat(ctx, LogcatOptions{Lines: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) > 5 {
			t.Errorf("%d lines", len(lines))
		}
	})
}

func TestOpsAppsAndInput(t *testing.T) {
	_, vd, d := opsEnv(t)
	ctx := t.Context()
	apps, err := d.Apps(ctx, AppsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, a := range apps {
		names[a.Package] = a.System
	}
	if sys, ok := names["com.example.login"]; !ok || sys {
		t.Errorf("apps = %+v", apps)
	}
	if sys, ok := names["com.android.settings"]; !ok || !sys {
		t.Errorf("apps = %+v", apps)
	}
	third, err := d.Apps(ctx, AppsOptions{ThirdParty: true})
	if err != nil || slices.ContainsFunc(third, func(a App) bool { return a.System }) {
		t.Errorf("third party = %+v %v", third, err)
	}

	act, err := d.LauncherActivity(ctx, "com.example.login")
	if err != nil || act == "" {
		t.Fatalf("launcher activity = %q %v", act, err)
	}
	if _, err := d.LauncherActivity(ctx, "com.google.android.apps.nexuslauncher"); !errors.Is(err, ErrNoLauncher) {
		t.Errorf("no launcher: %v", err)
	}
	if _, err := d.Launch(ctx, "bad pkg; rm", ""); !errors.Is(err, ErrBadPackage) {
		t.Errorf("bad package: %v", err)
	}
	if _, err := d.Launch(ctx, "com.example.nothere", ""); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("not installed: %v", err)
	}
	if _, err := d.Launch(ctx, "com.example.login", ".NoSuchActivity"); !errors.Is(err, ErrNoActivity) {
		t.Errorf("no such activity: %v", err)
	}
	for pkg, want := range map[string]bool{"com.example.login": true, "com.example.nothere": false} {
		if got, err := d.Installed(ctx, pkg); err != nil || got != want {
			t.Errorf("installed %s = %v %v, want %v", pkg, got, err, want)
		}
	}
	launchable, err := d.Launchable(ctx, []string{"com.example.login", "com.google.android.apps.nexuslauncher", "com.android.chrome"})
	if err != nil || !launchable["com.example.login"] || launchable["com.google.android.apps.nexuslauncher"] || !launchable["com.android.chrome"] {
		t.Errorf("launchable = %v %v", launchable, err)
	}
	if _, err := d.Launchable(ctx, []string{"com.example.login", "x;reboot"}); !errors.Is(err, ErrBadPackage) {
		t.Errorf("launchable with a bad name: %v", err)
	}

	front, err := d.Launch(ctx, "com.example.login", "")
	if err != nil {
		t.Fatal(err)
	}
	if front.Package != "com.example.login" {
		t.Errorf("am reported %+v in front", front)
	}
	if pkg, _ := vd.Android().Foreground(); pkg != "com.example.login" {
		t.Fatalf("foreground after launch = %s", pkg)
	}
	root, err := d.UIDump(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var field *struct{ x, y int }
	var fieldID string
	for _, n := range parse.Flatten(root) {
		if n.Class == "android.widget.EditText" && n.Enabled {
			field = &struct{ x, y int }{n.Center.X, n.Center.Y}
			fieldID = n.ResourceID
			break
		}
	}
	if field == nil {
		t.Fatal("no text field in login screen")
	}
	if err := d.Tap(ctx, field.x, field.y); err != nil {
		t.Fatal(err)
	}
	const typed = `a b%s'"$(x);&|*~\`
	if err := d.Text(ctx, typed); err != nil {
		t.Fatal(err)
	}
	if got := vd.Android().FieldText(fieldID); got != typed {
		t.Errorf("field text = %q, want %q", got, typed)
	}
	// Non-ASCII goes through the ADB Keyboard IME (installed in the
	// launcher scenario).
	if err := d.Text(ctx, " héllo 日本\n"); err != nil {
		t.Fatal(err)
	}
	if got := vd.Android().FieldText(fieldID); got != typed+" héllo 日本\n" {
		t.Errorf("field text after IME = %q", got)
	}
	if err := d.KeyEvent(ctx, "HOME"); err != nil {
		t.Fatal(err)
	}
	if pkg, _ := vd.Android().Foreground(); pkg != "com.google.android.apps.nexuslauncher" {
		t.Errorf("after HOME: %s", pkg)
	}
	if err := d.KeyEvent(ctx, "HOME; reboot"); err == nil {
		t.Error("bad key accepted")
	}
	if err := d.Swipe(ctx, 100, 900, 100, 300, 50*time.Millisecond); err != nil {
		t.Error(err)
	}
	if err := d.LongPress(ctx, 100, 100, 10*time.Millisecond); err != nil {
		t.Error(err)
	}
	if err := d.ForceStop(ctx, "com.example.login"); err != nil {
		t.Error(err)
	}
	if h, err := d.OpenURL(ctx, "https://example.com/?q=a b&c=d"); err != nil || h.Package != "com.android.chrome" {
		t.Errorf("handler %+v, %v", h, err)
	}
	if _, err := d.OpenURL(ctx, "ftp://example.com/"); !errors.Is(err, ErrNoHandler) {
		t.Errorf("no handler: %v", err)
	}
	if pkg, _ := vd.Android().Foreground(); pkg != "com.android.chrome" {
		t.Errorf("after OpenURL: %s", pkg)
	}
}

func TestOpsMedia(t *testing.T) {
	_, vd, d := opsEnv(t)
	ctx := t.Context()
	b, err := d.ScreencapPNG(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pimg, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := d.ScreencapRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if raw.Bounds() != pimg.Bounds() {
		t.Errorf("raw %v vs png %v", raw.Bounds(), pimg.Bounds())
	}
	// Same pixels either way.
	for _, p := range [][2]int{{10, 10}, {360, 640}, {700, 1270}} {
		r1, g1, b1, _ := pimg.At(p[0], p[1]).RGBA()
		r2, g2, b2, _ := raw.At(p[0], p[1]).RGBA()
		if r1>>8 != r2>>8 || g1>>8 != g2>>8 || b1>>8 != b2>>8 {
			t.Errorf("pixel %v: png %d,%d,%d raw %d,%d,%d", p, r1>>8, g1>>8, b1>>8, r2>>8, g2>>8, b2>>8)
		}
	}
	var mp4 bytes.Buffer
	if err := d.ScreenRecord(ctx, ScreenRecordOptions{Limit: time.Second}, &mp4); err != nil {
		t.Fatal(err)
	}
	if mp4.Len() < 8 || !bytes.Contains(mp4.Bytes()[:16], []byte("ftyp")) {
		t.Errorf("not an mp4: % x", mp4.Bytes()[:min(16, mp4.Len())])
	}
	list, err := d.List(ctx, "/data/local/tmp")
	if err == nil {
		for _, f := range list {
			// The phone helper's jar stays until a reset removes it.
			if bytes.HasPrefix([]byte(f.Name), []byte("adbc-")) && !strings.HasPrefix(f.Name, "adbc-helper-") {
				t.Errorf("left behind: %s", f.Name)
			}
		}
	}
	vd.Android().SetScreenOn(false)
	if _, err := d.UIDump(ctx); !errors.Is(err, ErrScreenOff) {
		t.Errorf("UIDump with screen off: %v", err)
	}
}
