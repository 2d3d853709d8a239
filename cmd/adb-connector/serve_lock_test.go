package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestServeSecondOnSameDataDir starts a second real `serve` on the data
// directory of a running one: it must refuse in one line naming the first
// one's pid before touching anything, so the first server's in-progress
// upload in files/tmp survives.
func TestServeSecondOnSameDataDir(t *testing.T) {
	t.Parallel()
	dir, bin := t.TempDir(), binary(t)
	adbArg := privateADB(t)
	first := start(t, bin, dir, adbArg...)
	partial := filepath.Join(dir, "files", "tmp", "upload-in-progress")
	if err := os.WriteFile(partial, []byte("half a file"), 0o600); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dir}, adbArg...)...)
	cmd.Env = append(os.Environ(), "ADB_CONNECTOR_API_KEY="+testKey)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("second serve: %v, want exit status 1\n%s", err, stderr.String())
	}
	out := strings.TrimSuffix(stderr.String(), "\n")
	pid := strconv.Itoa(first.cmd.Process.Pid)
	if strings.Contains(out, "\n") || !strings.Contains(out, "pid "+pid) || !strings.Contains(out, dir) {
		t.Errorf("second serve said %q, want one line naming %s and pid %s", out, dir, pid)
	}
	if b, err := os.ReadFile(partial); err != nil || string(b) != "half a file" {
		t.Errorf("the first server's partial upload: %q, %v", b, err)
	}
	select {
	case <-first.done:
		t.Fatalf("the first server exited\n%s", first.Logs())
	default:
	}
}
