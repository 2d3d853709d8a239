package phonetest

import (
	"flag"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var newDevice, run, mustRun = phonekit.NewDevice, phonekit.Run, phonekit.MustRun
