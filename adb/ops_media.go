package adb

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb/helper"
	"github.com/adb-connector/adb-connector/adb/parse"
)

// Default timeouts of the media operations.
const (
	// DefaultScreencapTimeout bounds ScreencapPNG and ScreencapRaw.
	DefaultScreencapTimeout = 15 * time.Second
	// DefaultUIDumpTimeout bounds UIDump.
	DefaultUIDumpTimeout = 20 * time.Second
	// DefaultLogcatTimeout bounds Logcat.
	DefaultLogcatTimeout = 15 * time.Second
	// MaxScreenRecord is the longest ScreenRecord (screenrecord's limit).
	MaxScreenRecord = 180 * time.Second
)

// UI dump failures, both wrapped with uiautomator's own words.
var (
	// ErrScreenOff: the UI cannot be dumped (screen off or no window):
	// uiautomator says "null root node returned by UiTestAutomationBridge".
	ErrScreenOff = errors.New("adb: no UI to dump (screen off?)")
	// ErrUIBusy: the UI never went idle for uiautomator ("ERROR: could not
	// get idle state.", seen on animated screens); a later dump may work.
	ErrUIBusy = errors.New("adb: the UI is not idle (animating?)")
	// ErrUIHeld: another process holds the phone's one UiAutomation
	// connection (uiautomator2, Appium, a running uiautomator), so no tree
	// can be read until it lets go; it is never taken from it.
	ErrUIHeld = errors.New("adb: another tool holds the phone's UiAutomation connection (uiautomator2, Appium, a running uiautomator)")
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// pngEnd is a PNG's last chunk: IEND, empty, with its fixed CRC.
var pngEnd = []byte("\x00\x00\x00\x00IEND\xaeB`\x82")

// completePNG reports whether b is a whole PNG stream: signature first,
// IEND chunk last.
func completePNG(b []byte) bool {
	return bytes.HasPrefix(b, pngMagic) && bytes.HasSuffix(b, pngEnd)
}

// ScreencapPNG returns a PNG screenshot (exec-out screencap -p): the
// phone's bytes, checked to be a whole PNG. Device.Screenshot picks between
// this and the raw modes. Default timeout: DefaultScreencapTimeout.
// Counted as a read.
func (d *Device) ScreencapPNG(ctx context.Context) ([]byte, error) {
	shot, err := d.screencapIn(ctx, CapturePNG)
	if err != nil {
		return nil, err
	}
	return shot.PNG, nil
}

// ScreencapRaw returns a screenshot from the raw screencap format (exec-out
// screencap, no PNG encoding on the device: usually faster), converted to
// RGBA; output longer or shorter than its header says is an error wrapping
// ErrProtocol. Device.Screenshot picks between this and ScreencapPNG.
// Default timeout: DefaultScreencapTimeout. Counted as a read.
func (d *Device) ScreencapRaw(ctx context.Context) (*image.RGBA, error) {
	// The frame's buffer comes from the pool and is never handed back:
	// the caller keeps the image.
	shot, err := d.screencapIn(ctx, CaptureRaw)
	if err != nil {
		return nil, err
	}
	return shot.frame.img, nil
}

// screencapIn takes one capture in mode under a read slot, with no
// measurement and no fallback (ScreencapPNG, ScreencapRaw).
func (d *Device) screencapIn(ctx context.Context, mode CaptureMode) (*Screenshot, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultScreencapTimeout)
	defer cancel()
	op := "screencap " + mode.String()
	release, err := d.lim.acquire(ctx, opRead)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer release()
	shot, _, err := d.captureStream(ctx, op, mode)
	return shot, err
}

func clip(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}

func tmpName(prefix, ext string) string {
	var r [6]byte
	_, _ = rand.Read(r[:])
	return "/data/local/tmp/" + prefix + hex.EncodeToString(r[:]) + ext
}

// UIDump dumps the UI hierarchy and parses it: from the phone helper when
// it runs (helper_ops.go), else with uiautomator dump to a temporary file,
// cat, rm. A screen with no UI gives ErrScreenOff, one that never
// goes idle ErrUIBusy. Serialized with
// inputs (uiautomator cannot run twice at once, and a dump reflects the
// inputs before it). Default timeout: DefaultUIDumpTimeout.
func (d *Device) UIDump(ctx context.Context) (*parse.UINode, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultUIDumpTimeout)
	defer cancel()
	if root, served, err := d.uiDumpHelper(ctx); served {
		return root, err
	}
	d.stockCall(helper.OpTree)
	f := tmpName("adbc-ui-", ".xml")
	// ";" not "&&": uiautomator can be killed after it wrote the file
	// (it then exits non-zero), and that dump is still whole.
	script := fmt.Sprintf("uiautomator dump %s; cat %s; rm -f %s", f, f, f)
	seq := d.actions.Load()
	// Serialized with the inputs (uiautomator holds the UiAutomation
	// connection), but no action: ActionSeq does not count it.
	res, err := d.limitedShell(ctx, opInput, 0, script, d.runShellV2)
	if err != nil && !isExit(err) {
		return nil, fmt.Errorf("ui dump: %w", err)
	}
	out := res.Stdout
	i := bytes.Index(out, []byte("<?xml"))
	if i < 0 {
		msg := strings.TrimSpace(string(clip(append(out, res.Stderr...))))
		switch {
		case bytes.Contains(out, []byte("already registered")) || bytes.Contains(res.Stderr, []byte("already registered")):
			// Another process holds the one UiAutomation connection
			// (AOSP UiAutomationManagerService
			// registerUiTestAutomationServiceLocked); it may let go.
			return nil, fmt.Errorf("ui dump: %w", ErrUIHeld)
		case strings.Contains(msg, "could not get idle state"), strings.HasPrefix(msg, "Killed"):
			// "Killed": the phone stopped uiautomator (low memory, a
			// watchdog); a later dump may work.
			return nil, fmt.Errorf("ui dump: %w: %s", ErrUIBusy, msg)
		case strings.Contains(msg, "null root node"):
			return nil, fmt.Errorf("ui dump: %w: %s", ErrScreenOff, msg)
		}
		return nil, fmt.Errorf("ui dump: %w: %q", ErrProtocol, msg)
	}
	// parse.UIDump ignores what follows </hierarchy>.
	root, err := parse.UIDump(out[i:])
	if err != nil {
		return nil, fmt.Errorf("ui dump: %w", err)
	}
	// The dump's frame is the one its caller will tap in.
	d.noteRotation(root.Rotation, seq)
	return root, nil
}

// ScreenRecord bounds (screenrecord.cpp: kMinBitRate, kMaxBitRate).
const (
	MinRecordBitRate = 100_000
	MaxRecordBitRate = 200_000_000
)

// ScreenRecordOptions says how to record. Limit is required; the zero value
// of every other field means screenrecord's default.
type ScreenRecordOptions struct {
	// Limit is how long to record, 1 s to MaxScreenRecord, rounded up to
	// whole seconds (screenrecord's --time-limit counts seconds).
	Limit time.Duration
	// Width and Height are the video size (--size WxH), both or neither.
	// Default: the display's size in its current orientation.
	Width, Height int
	// BitRate is the video bit rate in bits per second (--bit-rate),
	// MinRecordBitRate to MaxRecordBitRate. Default: screenrecord's (4 or
	// 20 Mbps by release).
	BitRate int
}

// args returns screenrecord's options, or an error for a value
// screenrecord would refuse.
func (o ScreenRecordOptions) args() ([]string, error) {
	secs := int((o.Limit + time.Second - 1) / time.Second)
	if o.Limit < time.Second || o.Limit > MaxScreenRecord {
		return nil, fmt.Errorf("adb: screen record limit %v out of range", o.Limit)
	}
	argv := []string{"screenrecord", "--time-limit", strconv.Itoa(secs)}
	switch {
	case o.Width > 0 && o.Height > 0:
		argv = append(argv, "--size", strconv.Itoa(o.Width)+"x"+strconv.Itoa(o.Height))
	case o.Width != 0 || o.Height != 0:
		return nil, fmt.Errorf("adb: screen record size %dx%d", o.Width, o.Height)
	}
	if o.BitRate != 0 {
		if o.BitRate < MinRecordBitRate || o.BitRate > MaxRecordBitRate {
			return nil, fmt.Errorf("adb: screen record bit rate %d out of range", o.BitRate)
		}
		argv = append(argv, "--bit-rate", strconv.Itoa(o.BitRate))
	}
	return argv, nil
}

// ScreenRecord records the screen as opt says with screenrecord (into a
// file under /data/local/tmp), pulls the MP4 into w, and removes the file
// from the device whatever happens: a failed pull, a failing w or a ctx
// that ends mid-recording (the removal then runs on a context of its own).
// A stream closed mid-recording makes adbd hang up on screenrecord
// (SIGHUP), which stops and finishes the file it has open: removed by then,
// the file is gone with its last descriptor. It may also not have created
// the file yet, or (the virtual phone) write it only as it stops, so after
// an interrupted recording the file is removed again a second later.
// Default timeout: opt.Limit + 30 s. Counted as a read.
func (d *Device) ScreenRecord(ctx context.Context, opt ScreenRecordOptions, w io.Writer) error {
	argv, err := opt.args()
	if err != nil {
		return err
	}
	ctx, cancel := withDefaultTimeout(ctx, opt.Limit+30*time.Second)
	defer cancel()
	f := tmpName("adbc-rec-", ".mp4")
	interrupted := false
	defer func() {
		// Best effort clean-up, even when ctx is done.
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer ccancel()
		script := "rm -f " + f
		if interrupted {
			script += "; sleep 1; rm -f " + f
		}
		_, _ = d.runShellV2(cctx, script)
	}()
	cmd, err := QuoteArgs(append(argv, f)...)
	if err != nil {
		return err
	}
	if _, err := d.shellScript(ctx, opRead, cmd); err != nil {
		interrupted = ctx.Err() != nil
		return fmt.Errorf("screenrecord: %w", err)
	}
	if err := d.Pull(ctx, f, w); err != nil {
		return fmt.Errorf("screenrecord: %w", err)
	}
	return nil
}

// LogcatOptions selects log lines. The zero value returns the last 200
// lines of the default buffers.
type LogcatOptions struct {
	// Lines is how many of the most recent matching lines (default 200,
	// max MaxLogcatLines).
	Lines int
	// Filters are logcat filter specs ("ActivityManager:I", "*:S").
	Filters []string
	// PID keeps the lines of this process only (--pid, Android 7+); 0: all.
	PID int
	// Since keeps the lines logged at or after it, by the phone's clock
	// (-t SECONDS.mmm, Android 7+); zero: all.
	Since time.Time
	// Match, when set, keeps only the lines it accepts, before the last
	// Lines are taken: for what logcat cannot select (a tag with ':', text
	// in the message, several pids).
	Match func(parse.LogLine) bool
}

// MaxLogcatLines bounds LogcatOptions.Lines.
const MaxLogcatLines = 10000

// Logcat returns the most recent log lines that opt selects (logcat -d -v
// threadtime). logd counts -t N before logcat applies filter specs (they
// are applied by the logcat process to what logd sends), so with filters,
// Match or Since the whole selection is read and its last Lines kept here;
// without, logd's own tail (-t N) is exact. Default timeout:
// DefaultLogcatTimeout.
func (d *Device) Logcat(ctx context.Context, opt LogcatOptions) ([]parse.LogLine, error) {
	n := opt.Lines
	if n <= 0 {
		n = 200
	}
	n = min(n, MaxLogcatLines)
	argv := []string{"logcat", "-d", "-v", "threadtime"}
	if opt.PID < 0 {
		return nil, fmt.Errorf("adb: bad logcat pid %d", opt.PID)
	}
	if opt.PID > 0 {
		argv = append(argv, "--pid="+strconv.Itoa(opt.PID))
	}
	switch {
	case !opt.Since.IsZero():
		ms := opt.Since.UnixMilli()
		argv = append(argv, "-t", fmt.Sprintf("%d.%03d", ms/1000, ms%1000))
	case len(opt.Filters) == 0 && opt.Match == nil:
		argv = append(argv, "-t", strconv.Itoa(n))
	}
	for _, f := range opt.Filters {
		if f == "" || strings.HasPrefix(f, "-") || strings.ContainsAny(f, " \t\n") {
			return nil, fmt.Errorf("adb: bad logcat filter %q", f)
		}
		argv = append(argv, f)
	}
	cmd, err := QuoteArgs(argv...)
	if err != nil {
		return nil, err
	}
	ctx, cancel := withDefaultTimeout(ctx, DefaultLogcatTimeout)
	defer cancel()
	res, err := d.shellScript(ctx, opRead, cmd)
	if err != nil {
		return nil, fmt.Errorf("logcat: %w", err)
	}
	lines, err := parse.Logcat(string(res.Stdout))
	if err != nil {
		return nil, fmt.Errorf("logcat: %w", err)
	}
	if opt.Match != nil {
		kept := lines[:0]
		for _, l := range lines {
			if opt.Match(l) {
				kept = append(kept, l)
			}
		}
		lines = kept
	}
	return lines[max(len(lines)-n, 0):], nil
}

// PIDs returns the pids of the processes named name (an app's package names
// its main process) with toybox pidof (Android 6+); none running is an
// empty list. Default timeout: DefaultShellTimeout. Counted as a read.
func (d *Device) PIDs(ctx context.Context, name string) ([]int, error) {
	res, err := d.Shell(ctx, "pidof", name)
	var ee *ExitError
	if errors.As(err, &ee) && ee.Code == 1 && len(bytes.TrimSpace(res.Stdout)) == 0 {
		return []int{}, nil // pidof: none found
	}
	if err != nil {
		return nil, fmt.Errorf("pidof: %w", err)
	}
	pids := []int{}
	for _, f := range strings.Fields(string(res.Stdout)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("pidof: %w: %q", ErrProtocol, clip(res.Stdout))
		}
		pids = append(pids, pid)
	}
	return pids, nil
}
