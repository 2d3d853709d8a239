package devices_test

import (
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newDevice is a phone on the fixed clock unless cfg sets one.
func newDevice(t testing.TB, cfg android.Config) *android.Device {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = phonekit.FixedNow
	}
	d, err := android.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run and mustRun run one command line (phonekit.Run, phonekit.MustRun).
var run, mustRun = phonekit.Run, phonekit.MustRun
