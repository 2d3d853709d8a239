package phonetest

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
)

// gzipRatio is the gzip -1 size of b as a fraction of its length.
func gzipRatio(t *testing.T, b []byte) float64 {
	t.Helper()
	var out bytes.Buffer
	w, err := gzip.NewWriterLevel(&out, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return float64(out.Len()) / float64(len(b))
}

// TestPictureScreensCompressLikePhotos: the photos scenario's screens
// compress as real screens with photos and maps do (gzip -1 at 5-30 % of
// the raw frame), where a flat UI screen gzips to about 1.5 %.
func TestPictureScreensCompressLikePhotos(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		screen, launch string
	}{{"feed", ""}, {"map", "com.example.maps"}, {"video", "com.example.video"}} {
		t.Run(tc.screen, func(t *testing.T) {
			t.Parallel()
			d := newDevice(t, android.Config{Scenario: "photos"})
			if tc.launch != "" {
				mustRun(t, d, "monkey -p "+tc.launch+" 1")
			}
			raw := []byte(mustRun(t, d, "screencap"))
			png := []byte(mustRun(t, d, "screencap -p"))
			gz := gzipRatio(t, raw)
			t.Logf("%s: raw %d, gzip -1 %.1f %%, PNG %.1f %%", tc.screen, len(raw), 100*gz, 100*float64(len(png))/float64(len(raw)))
			if gz < 0.05 || gz > 0.30 {
				t.Errorf("gzip -1 ratio %.3f outside 0.05-0.30", gz)
			}
		})
	}
	flat := newDevice(t, android.Config{})
	t.Logf("launcher (flat): gzip -1 %.1f %%", 100*gzipRatio(t, []byte(mustRun(t, flat, "screencap"))))
}

// TestNeverIdleScreen: on the playing video (a screen that never stops
// animating) `uiautomator dump` waits out waitForIdle's 10 s and fails as
// AOSP DumpCommand does: "ERROR: could not get idle state." on stderr,
// exit status 0, no file. Back on the feed it dumps again.
func TestNeverIdleScreen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDevice(t, android.Config{Scenario: "photos"})
		mustRun(t, d, "monkey -p com.example.video 1")
		start := time.Now()
		out, errOut, st := run(t, d, "uiautomator dump")
		if took := time.Since(start); took != 10*time.Second {
			t.Errorf("dump took %v of fake time, want 10s", took)
		}
		if out != "" || errOut != "ERROR: could not get idle state.\n" || st != 0 {
			t.Fatalf("dump: %q %q %d", out, errOut, st)
		}
		if _, _, st := run(t, d, "ls /sdcard/window_dump.xml"); st == 0 {
			t.Fatal("a dump file was written")
		}
		mustRun(t, d, "input keyevent BACK")
		if out := mustRun(t, d, "uiautomator dump"); !strings.HasPrefix(out, "UI hierchary dumped to:") {
			t.Fatalf("feed dump: %q", out)
		}
	})
}
