package devices_test

import (
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var newDevice, run, mustRun = phonekit.NewDevice, phonekit.Run, phonekit.MustRun
