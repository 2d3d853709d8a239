package main

import (
	"bytes"
	"encoding/json"
	"image"
	_ "image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/shell"

	"github.com/adb-connector/adb-connector/adb/adbtest"
)

// readmeCommand returns the README's command line that starts with prefix,
// split as a shell would: a test runs what a reader copies.
func readmeCommand(t *testing.T, prefix string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, prefix) {
			f, err := shell.Fields(line, nil)
			if err != nil {
				t.Fatalf("README line %q: %v", line, err)
			}
			return f
		}
	}
	t.Fatalf("README has no line starting %q", prefix)
	return nil
}

// tryEnv starts a serve with n virtual phones and points the environment
// at it as `make run`'s user has it (the listen address, the data
// directory, the API key), with the current directory and the cache
// (where try --keep remembers its channel) in temp directories. It waits
// until every phone is online, as after `make run` has settled.
func tryEnv(t *testing.T, n string) (*serveProc, string) {
	t.Helper()
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	p, devs := startServeVirtual(t, t.TempDir(), env.ServerAddr, nil, "--virtual-devices", n)
	t.Setenv("ADB_CONNECTOR_LISTEN", strings.TrimPrefix(p.URL, "http://"))
	t.Setenv(dataDirEnv, p.DataDir)
	t.Setenv("ADB_CONNECTOR_API_KEY", e2eKey)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	work := t.TempDir()
	t.Chdir(work)
	for _, d := range devs {
		p.waitOnline(t, d.Serial())
	}
	return p, work
}

func runTryCLI(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(args, &out, &errOut); err != nil {
		t.Fatalf("%v: %v\nstderr: %s", args, err, errOut.String())
	}
	return out.String(), errOut.String()
}

// TestTryREADMEFirstCall runs the README's first call exactly as printed
// against a real serve with a virtual phone: it saves a JPEG screenshot
// of at most 1024 px in the current directory, prints the result, and
// leaves the phone free.
func TestTryREADMEFirstCall(t *testing.T) {
	args := readmeCommand(t, "adb-connector try ")
	if strings.Join(args, " ") != `adb-connector try android_observe {"max_side":1024}` {
		t.Fatalf("README's first call is %q", args)
	}
	p, work := tryEnv(t, "1")
	out, errOut := runTryCLI(t, args[1:]...)

	var res struct {
		Screenshot struct {
			FileRef  string `json:"file_ref"`
			Filename string `json:"filename"`
			MimeType string `json:"mime_type"`
		} `json:"screenshot"`
		Foreground struct {
			Package string `json:"package"`
		} `json:"foreground"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Screenshot.FileRef == "" || res.Foreground.Package == "" {
		t.Fatalf("stdout is not an observe result (%v):\n%s", err, out)
	}
	f, err := os.Open(filepath.Join(work, res.Screenshot.Filename))
	if err != nil {
		t.Fatalf("the screenshot was not saved in the current directory: %v\nstderr: %s", err, errOut)
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(f)
	if err != nil || max(cfg.Width, cfg.Height) > 1024 || format != res.Screenshot.MimeType[len("image/"):] {
		t.Errorf("saved %s: %s %dx%d (%v), want an image of at most 1024 px as %s", res.Screenshot.Filename, format, cfg.Width, cfg.Height, err, res.Screenshot.MimeType)
	}
	for _, want := range []string{"bound ", "saved " + res.Screenshot.Filename, "logged out"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	for _, r := range p.devices(t) {
		if r.Bound {
			t.Errorf("after try, %s is still bound", r.Serial)
		}
	}
	if strings.Contains(errOut+out, e2eKey) {
		t.Error("try printed the API key")
	}
}

// TestTryKeep: --keep holds one phone across calls (the second call
// reuses the channel, no new approval), a try without --keep releases
// it, and try --release frees a kept phone.
func TestTryKeep(t *testing.T) {
	p, _ := tryEnv(t, "2")
	_, e1 := runTryCLI(t, "try", "--keep", "android_device_status")
	var held string
	for _, r := range p.devices(t) {
		if r.Bound {
			held = r.Serial
		}
	}
	if held == "" || !strings.Contains(e1, "kept "+held) {
		t.Fatalf("after try --keep no phone is held (%q):\n%s", held, e1)
	}
	_, e2 := runTryCLI(t, "try", "--keep", "android_press_key", `{"key":"home"}`)
	if !strings.Contains(e2, "using the phone kept by an earlier try --keep: "+held) || strings.Contains(e2, "to a new channel") {
		t.Errorf("second try --keep did not reuse %s:\n%s", held, e2)
	}
	_, e3 := runTryCLI(t, "try", "android_device_status")
	if !strings.Contains(e3, "using the phone kept") || !strings.Contains(e3, "logged out: "+held) {
		t.Errorf("try without --keep did not end the kept binding:\n%s", e3)
	}
	for _, r := range p.devices(t) {
		if r.Bound {
			t.Errorf("after try without --keep, %s is still bound", r.Serial)
		}
	}
	runTryCLI(t, "try", "--keep", "android_device_status")
	_, e4 := runTryCLI(t, "try", "--release")
	if !strings.Contains(e4, "logged out") {
		t.Errorf("try --release:\n%s", e4)
	}
	for _, r := range p.devices(t) {
		if r.Bound {
			t.Errorf("after try --release, %s is still bound", r.Serial)
		}
	}
}
