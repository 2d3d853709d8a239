package adbtest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

// TestNoStrays runs an Env in a subtest and checks that, once its cleanups
// ran, no adb process for its port is left.
func TestNoStrays(t *testing.T) {
	var port int
	t.Run("env", func(t *testing.T) {
		env := adbtest.Start(t, adbtest.Options{Devices: 2})
		port = env.Port
		out, err := env.Adb("devices")
		if err != nil || strings.Count(out, "\tdevice") != 2 {
			t.Errorf("adb devices: %q %v", out, err)
		}
		env.RestartServer() // kill and restart the adb server
		if out, _ := env.Adb("-s", env.Devices[1].Serial(), "shell", "echo", "again"); out != "again\n" {
			t.Errorf("after restart: %q", out)
		}
	})
	if pids := adbserver.Processes(port); len(pids) > 0 {
		t.Errorf("stray adb processes for port %d: %v", port, pids)
	}
}

func TestKillServer(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{})
	env.KillServer()
	// Not the CLI here: it would start a daemon server on the port.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := adbserver.Query(ctx, env.ServerAddr, "host:version"); err == nil {
		t.Error("server still answers after KillServer")
	}
	env.StartServer()
	env.Connect(env.Devices[0])
	if st := env.State(env.Devices[0]); st != "device" {
		t.Errorf("state %q after restart", st)
	}
}

// fatalRecorder is a testing.TB whose Fatal records the message and ends
// the calling goroutine.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatal(args ...any) {
	r.msg = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *fatalRecorder) Fatalf(f string, args ...any) {
	r.msg = fmt.Sprintf(f, args...)
	runtime.Goexit()
}

func TestMissingADB(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	r := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		adbserver.Binary(r)
	}()
	<-done
	if !strings.Contains(r.msg, "apt-get install -y adb") {
		t.Errorf("message %q lacks the install command", r.msg)
	}
}
