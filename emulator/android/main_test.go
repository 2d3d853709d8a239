package android

import (
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newDevice(t testing.TB, cfg Config) *Device {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = phonekit.FixedNow
	}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run and mustRun run one command line (phonekit.Run, phonekit.MustRun).
var run, mustRun = phonekit.Run, phonekit.MustRun
