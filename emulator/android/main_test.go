package android

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixedNow is the clock of test devices, so outputs are reproducible.
func fixedNow() time.Time { return time.Date(2026, 12, 2, 9, 41, 7, 123e6, time.UTC) }

func newDevice(t testing.TB, cfg Config) *Device {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = fixedNow
	}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run runs one command line with a bounded context.
func run(t testing.TB, d *Device, line string) (stdout, stderr string, status int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var o, e bytes.Buffer
	status = d.Run(ctx, line, strings.NewReader(""), &o, &e)
	return o.String(), e.String(), status
}

// mustRun runs a line that must succeed.
func mustRun(t testing.TB, d *Device, line string) string {
	t.Helper()
	o, e, st := run(t, d, line)
	if st != 0 {
		t.Fatalf("%q: exit %d, stderr %q", line, st, e)
	}
	return o
}
