package android_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// ranCommand reports whether any logged simple command had argv[0] == name.
func ranCommand(d *android.Device, name string) bool {
	for _, c := range d.Commands() {
		for _, argv := range c.Argv {
			if len(argv) > 0 && argv[0] == name {
				return true
			}
		}
	}
	return false
}

func TestInjectionNeverRunsExtraCommands(t *testing.T) {
	// What a connector sends when it quotes hostile arguments correctly:
	// each must stay one argument, and nothing else may run.
	cases := []struct {
		line string
		argv []string
	}{
		{`input tap '1; rm -rf /' 2`, []string{"input", "tap", "1; rm -rf /", "2"}},
		{`input text 'a$(rm -rf /sdcard)b'`, []string{"input", "text", "a$(rm -rf /sdcard)b"}},
		{"input text '`rm -rf /sdcard`'", []string{"input", "text", "`rm -rf /sdcard`"}},
		{`input text 'x && rm -rf /sdcard || rm /sdcard'`, []string{"input", "text", "x && rm -rf /sdcard || rm /sdcard"}},
		{`input text 'it'"'"'s | rm'`, []string{"input", "text", "it's | rm"}},
		{`am start -a android.intent.action.VIEW -d 'https://x/;rm -rf /sdcard'`, []string{"am", "start", "-a", "android.intent.action.VIEW", "-d", "https://x/;rm -rf /sdcard"}},
	}
	for _, tc := range cases {
		t.Run(tc.argv[len(tc.argv)-1], func(t *testing.T) {
			t.Parallel()
			d := newDevice(t, android.Config{})
			mustRun(t, d, "echo keep > /sdcard/keep")
			d.ClearCommands()
			run(t, d, tc.line)
			cmds := d.Commands()
			if len(cmds) != 1 || len(cmds[0].Argv) != 1 || !slices.Equal(cmds[0].Argv[0], tc.argv) {
				t.Fatalf("command log %+v, want exactly argv %q", cmds, tc.argv)
			}
			if ranCommand(d, "rm") {
				t.Fatal("rm ran")
			}
			if _, err := d.FS().ReadFile("/sdcard/keep"); err != nil {
				t.Fatalf("file removed: %v", err)
			}
		})
	}
}

func TestNoHostAccess(t *testing.T) {
	t.Setenv("ADB_CONNECTOR_HOST_SECRET", "hunter2")
	hostDir := t.TempDir()
	hostFile := filepath.Join(hostDir, "host.txt")
	if err := os.WriteFile(hostFile, []byte("host data"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []string{
		"cat " + hostFile,
		"cat /etc/passwd",
		"ls " + hostDir,
		"echo $ADB_CONNECTOR_HOST_SECRET; env; set",
		"/bin/sh -c 'echo pwned > " + hostDir + "/pwned'",
		"/usr/bin/id",
		"exec /bin/ls",
		"command /bin/ls " + hostDir,
		"sh -c id",
		"sh -c 'cat " + hostFile + "; echo pwned > " + hostDir + "/pwned'",
		"echo 'cat " + hostFile + "' | sh",
		"sh " + hostFile,
		"bash -c id",
		"echo pwned > " + hostDir + "/pwned",
		"echo pwned >> " + hostFile,
		"cd " + hostDir + " && echo pwned > pwned",
		". " + hostFile,
		"source /etc/profile",
		"type ls sh bash; command -v sh; hash ls",
		"cat <(cat " + hostFile + ")",
		"echo " + hostDir + "/*",
		"[ -f " + hostFile + " ] && echo visible",
		"read x < " + hostFile + "; echo $x",
		"echo $$ $UID $EUID",
		"builtin type ls sh; builtin command -v sh; builtin hash",
		"cd /proc && pwd -P && builtin pwd -P",
		"echo pwned > /tmp/sh-interp-x; echo pwned > " + hostDir + "/sh-interp-x",
		"TMPDIR=" + hostDir + "; echo pwned > $TMPDIR/sh-interp-y",
		"echo pwned > " + android.HostTmpGuard + "/sh-interp-z",
		// The toybox tools take paths too: none may reach the host.
		"cp " + hostFile + " /sdcard/x; cat /sdcard/x",
		"cp /sdcard/x " + hostDir + "/pwned; mv /sdcard/x " + hostDir + "/pwned",
		"mv " + hostFile + " /sdcard/y; cat /sdcard/y",
		"ls -la " + hostDir + "; ls -R " + hostDir,
		"stat " + hostFile + "; stat -c %s " + hostFile,
		"grep host " + hostFile + "; sed -n p " + hostFile + "; head " + hostFile + "; tail " + hostFile + "; wc " + hostFile,
		"cat -v " + hostFile + "; /system/bin/cat " + hostFile,
		"touch " + hostDir + "/pwned; chmod 777 " + hostFile + "; rm -f " + hostFile,
		"which " + hostFile + "; date -r " + hostFile + "; touch -r " + hostFile + " /sdcard/z",
		"run-as com.example.login cat " + hostFile,
		"timeout 1 cat " + hostFile,
	}
	for _, line := range cases {
		t.Run(line, func(t *testing.T) {
			d := newDevice(t, android.Config{})
			out, errOut, _ := run(t, d, line)
			all := out + errOut
			for _, leak := range []string{"host data", "hunter2", "root:", "uid=0(", "visible"} {
				if strings.Contains(all, leak) {
					t.Fatalf("host leak %q in output:\n%s", leak, all)
				}
			}
			if strings.Contains(out, "host.txt") {
				t.Fatalf("host directory listed:\n%s", out)
			}
		})
	}
	for _, name := range []string{"pwned", "sh-interp-x", "sh-interp-y"} {
		if _, err := os.Stat(filepath.Join(hostDir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a host file %s was written: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(hostDir, "pwned")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a host file was written: %v", err)
	}
	if b, _ := os.ReadFile(hostFile); string(b) != "host data" {
		t.Fatalf("host file changed: %q", b)
	}
	if fi, err := os.Stat(hostFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("host file mode changed: %v %v", fi, err)
	}
}

func TestCommandLog(t *testing.T) {
	d := newDevice(t, android.Config{})
	run(t, d, `X="a b"; echo "$X" | cat; getprop ro.serialno; exit 4`)
	cmds := d.Commands()
	if len(cmds) != 1 {
		t.Fatalf("%d commands", len(cmds))
	}
	c := cmds[0]
	want := [][]string{{"echo", "a b"}, {"cat"}, {"getprop", "ro.serialno"}, {"exit", "4"}}
	slices.SortFunc(c.Argv[:2], func(a, b []string) int { return strings.Compare(a[0], b[0]) }) // pipeline order is concurrent
	slices.SortFunc(want[:2], func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	if c.Exit != 4 || !slices.EqualFunc(c.Argv, want, slices.Equal) || !c.Time.Equal(phonekit.FixedNow()) {
		t.Fatalf("logged %+v", c)
	}
	c.Argv[0][0] = "mutated"
	if d.Commands()[0].Argv[0][0] == "mutated" {
		t.Fatal("Commands returned shared slices")
	}
	d.ClearCommands()
	if len(d.Commands()) != 0 {
		t.Fatal("ClearCommands kept entries")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var got android.Command
	var err error
	wg.Add(1)
	go func() {
		defer wg.Done()
		got, err = d.WaitCommand(ctx, func(c android.Command) bool { return strings.HasPrefix(c.Line, "input tap") })
	}()
	run(t, d, "wm size")
	run(t, d, "input tap 1 2")
	wg.Wait()
	if err != nil || got.Line != "input tap 1 2" {
		t.Fatalf("WaitCommand = %+v, %v", got, err)
	}
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := d.WaitCommand(canceled, func(android.Command) bool { return false }); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitCommand on canceled ctx: %v", err)
	}
}

func TestFaults(t *testing.T) {
	d := newDevice(t, android.Config{})
	d.FailNext(2)
	for range 2 {
		out, errOut, st := run(t, d, "echo hi > /sdcard/f")
		if st != 1 || out != "" || !strings.Contains(errOut, "injected failure") {
			t.Fatalf("failed command: %q %q %d", out, errOut, st)
		}
	}
	if _, err := d.FS().ReadFile("/sdcard/f"); err == nil {
		t.Fatal("a failed command ran")
	}
	if _, _, st := run(t, d, "true"); st != 0 {
		t.Fatalf("third command status %d", st)
	}
	d.FailNextWithStatus(1, 255)
	if _, _, st := run(t, d, "true"); st != 255 {
		t.Fatalf("status %d, want 255", st)
	}
	if c := d.Commands(); c[len(c)-1].Exit != 255 {
		t.Fatal("fault not logged")
	}

	// Latency is context-aware: a closed stream ends the wait at once.
	d.SetLatency(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if st := d.Run(ctx, "true", strings.NewReader(""), &strings.Builder{}, &strings.Builder{}); st != shell.ExitCanceled {
		t.Fatalf("canceled status %d", st)
	}
	d.SetLatency(0)
	// sleep and logcat follow end with the stream.
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan int)
	var out strings.Builder
	go func() { done <- d.Run(ctx, "sleep 3600; echo no", strings.NewReader(""), &out, &strings.Builder{}) }()
	cancel()
	if st := <-done; st == 0 || out.String() != "" {
		t.Fatalf("sleep after cancel: status %d, output %q", st, out.String())
	}
	ctx, cancel = context.WithCancel(context.Background())
	go func() { done <- d.Run(ctx, "logcat", strings.NewReader(""), &strings.Builder{}, &strings.Builder{}) }()
	cancel()
	if st := <-done; st == 0 {
		t.Fatal("logcat (follow) ended with status 0 after cancel")
	}
}

func TestConcurrentUse(t *testing.T) {
	d := newDevice(t, android.Config{})
	lines := []string{"input tap 90 200", "input keyevent HOME", "dumpsys window", "screencap -p > /sdcard/a.png",
		"uiautomator dump", "am start -n com.android.settings/.Settings", "input swipe 1 1000 1 100 0", "logcat -d -t 5", "settings put global wifi_on 0"}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 10 {
				run(t, d, lines[(i+j)%len(lines)])
			}
		})
	}
	wg.Wait()
	if n := len(d.Commands()); n != 80 {
		t.Fatalf("%d commands logged, want 80", n)
	}
}

func TestSharedStorageAliases(t *testing.T) {
	d := newDevice(t, android.Config{})
	mustRun(t, d, "echo hi > /storage/emulated/0/a.txt")
	if err := d.Files().WriteFile("/storage/self/primary/b.txt", []byte("b"), 0o644, phonekit.FixedNow()); err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, d, "cat /sdcard/a.txt; ls /sdcard"); got != "hi\na.txt\nb.txt\n" {
		t.Fatalf("got %q", got)
	}
	if _, err := d.Files().ReadFile("/mnt/sdcard/a.txt"); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a goroutine-safe strings.Builder that signals each write.
type syncBuffer struct {
	mu    sync.Mutex
	b     strings.Builder
	wrote chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(p)
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLogcatFollow(t *testing.T) {
	d := newDevice(t, android.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{wrote: make(chan struct{}, 1)}
	done := make(chan int)
	// logcat prints nothing until a line passes its filter: one logged
	// before it starts shows that it is reading.
	d.Log('I', "MyTag", "ready")
	go func() { done <- d.Run(ctx, "logcat -v brief MyTag:D '*:S'", nil, out, io.Discard) }()
	for !strings.Contains(out.String(), "ready") {
		<-out.wrote
	}
	d.Log('I', "MyTag", "hello follower")
	d.Log('I', "Other", "filtered out")
	for !strings.Contains(out.String(), "hello follower") {
		<-out.wrote
	}
	cancel()
	if st := <-done; st != shell.ExitCanceled {
		t.Fatalf("status %d", st)
	}
	if got := out.String(); strings.Contains(got, "filtered out") || !strings.Contains(got, "I/MyTag   ( 1433): hello follower\n") {
		t.Fatalf("followed output %q", got)
	}
}

// Nothing outlives Run: `&` jobs run in the foreground (goleak checks the rest).
func TestBackgroundJobsRunInForeground(t *testing.T) {
	d := newDevice(t, android.Config{})
	if out := mustRun(t, d, "echo a > /sdcard/f & cat /sdcard/f; sleep 0.01 & wait; echo done"); out != "a\ndone\n" {
		t.Fatalf("got %q", out)
	}
}

func TestTmpdirIsVirtual(t *testing.T) {
	d := newDevice(t, android.Config{})
	if got := mustRun(t, d, "echo $TMPDIR; echo x > $TMPDIR/sh-interp-1; cat /data/local/tmp/sh-interp-1"); got != "/data/local/tmp\nx\n" {
		t.Fatalf("got %q", got)
	}
}
