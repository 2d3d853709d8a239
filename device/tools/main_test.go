package tools

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// setupWait bounds waits that depend on the adb server or a busy database
// (a failure detector, not a timing assertion).
const setupWait = 30 * time.Second
