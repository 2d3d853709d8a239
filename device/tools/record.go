package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/files"
)

// android_screen_record bounds and defaults.
const (
	minRecordMS = 1000
	// defaultMaxRecord is Config.MaxRecordDuration's default.
	defaultMaxRecord = 30 * time.Second
	minRecordSide    = 128
	maxRecordSide    = 4096
	// defaultRecordBitRate keeps a recording small (30 s is about 15 MB);
	// screenrecord's own default is 20 Mbps on recent phones.
	defaultRecordBitRate = 4_000_000
	// recordAlign: video sizes are multiples of 16, the macroblock size
	// hardware AVC encoders ask for; screenrecord fails rather than adjust
	// a --size the encoder refuses.
	recordAlign = 16
)

// msgNoScreenrecord is the not_supported message of a phone without
// screenrecord (Android 4.4 added it; some vendor builds leave it out).
const msgNoScreenrecord = "this phone has no screenrecord command, so its screen cannot be recorded"

// msgBadRecording: screenrecord exited without a playable file (the
// encoder failed, or the phone stopped it).
const msgBadRecording = "the phone's screenrecord did not produce a playable video; try again, or a smaller max_side or bit_rate"

// msgRecordTooLarge: the video is over the file store's per-file limit.
const msgRecordTooLarge = "the video is larger than the connector stores; record a shorter duration_ms, or set a smaller max_side or bit_rate"

// recordResult is android_screen_record's result: the video file's fields
// (width and height as encoded) and its duration.
type recordResult struct {
	FileResult
	DurationMS int64 `json:"duration_ms"`
}

type recordArgs struct {
	DurationMS int  `json:"duration_ms"`
	MaxSide    int  `json:"max_side"` // 0: the screen's size
	BitRate    *int `json:"bit_rate"` // nil: defaultRecordBitRate
}

func recordTool(t *Tools) *toolDef {
	maxMS := int(t.cfg.MaxRecordDuration / time.Millisecond)
	return declare(t, decl[recordArgs]{
		id: "android_screen_record", title: "Record the Android phone's screen",
		props: map[string]any{
			"duration_ms": map[string]any{"type": "integer", "minimum": minRecordMS, "maximum": maxMS,
				"description": "How long to record, in milliseconds (screenrecord counts whole seconds: rounded up)."},
			"max_side": map[string]any{"type": "integer", "minimum": minRecordSide, "maximum": maxRecordSide,
				"description": "Longest side of the video in pixels (a multiple of 16); never enlarged. Default: the screen's size."},
			"bit_rate": map[string]any{"type": "integer", "minimum": adb.MinRecordBitRate, "maximum": adb.MaxRecordBitRate,
				"description": fmt.Sprintf("Video bit rate in bits per second. Default %d.", defaultRecordBitRate)},
		}, required: []string{"duration_ms"}, readOnly: true, run: (*Tools).runRecord,
		description: fmt.Sprintf("Records the bound phone's screen for duration_ms (%d-%d, whole seconds, rounded up) and "+
			"returns an MP4 video file (video/mp4) like android_screenshot: file_ref, relative download_url, width, "+
			"height, expires_at, plus duration_ms as recorded. Optional max_side shrinks the longest side (%d-%d; "+
			"the screen's size by default) and bit_rate sets bits per second (default %d). The call lasts the "+
			"recording and sends a progress push every second; the file is removed from the phone in every case. "+
			"Read-only but for the stored file. Repeating a call with the same tool_call_id returns the first "+
			"result (the same file) without recording again.", minRecordMS, maxMS, minRecordSide, maxRecordSide,
			defaultRecordBitRate),
	})
}

func (t *Tools) runRecord(ctx context.Context, inv *invocation, a recordArgs) (any, error) {
	opt := adb.ScreenRecordOptions{Limit: time.Duration(a.DurationMS) * time.Millisecond, BitRate: defaultRecordBitRate}
	if a.BitRate != nil {
		opt.BitRate = *a.BitRate
	}
	if a.MaxSide > 0 {
		si, err := inv.dev.RecentScreenInfo(ctx)
		if err != nil {
			return nil, err
		}
		opt.Width, opt.Height = recordSize(si, a.MaxSide)
	}
	return t.record(ctx, inv, opt)
}

// recordSize is the video size for maxSide: the oriented screen scaled so
// its longest side is at most maxSide, each side a multiple of
// recordAlign; 0, 0 (screenrecord's default: the screen) when the screen
// fits.
func recordSize(si adb.ScreenInfo, maxSide int) (w, h int) {
	sw, sh := si.Oriented()
	long := max(sw, sh)
	if long <= maxSide || sw <= 0 || sh <= 0 {
		return 0, 0
	}
	scale := func(v int) int { return max(v*maxSide/long/recordAlign*recordAlign, recordAlign) }
	return scale(sw), scale(sh)
}

// record runs screenrecord and streams the pulled file into the file store,
// checking its box structure on the way: a file that is not a whole MP4 is
// never stored.
func (t *Tools) record(ctx context.Context, inv *invocation, opt adb.ScreenRecordOptions) (recordResult, error) {
	pr, pw := io.Pipe()
	var head parse.MP4Head
	var (
		wg     sync.WaitGroup
		recErr error
		info   parse.MP4Info
	)
	wg.Go(func() {
		recErr = inv.dev.ScreenRecord(ctx, opt, io.MultiWriter(pw, &head))
		if recErr == nil {
			if info, recErr = head.Info(); recErr != nil {
				recErr = &connector.Error{Code: connector.CodeToolInvokeFailed, Message: msgBadRecording}
			}
		}
		pw.CloseWithError(recErr) // nil: EOF, and the store keeps the file
	})
	ref, err := t.putFile(ctx, inv, files.Meta{MIMEType: "video/mp4", Filename: t.fileName("screenrecord", ".mp4")}, nil, pr)
	// A store that stopped reading (too large, closed) ends the pull.
	pr.CloseWithError(errors.Join(err, errStoreGone))
	wg.Wait()
	var (
		ee  *adb.ExitError
		big *files.TooLargeError
	)
	switch {
	case errors.As(recErr, &ee) && ee.Code == 127:
		return recordResult{}, &connector.Error{Code: codeNotSupported, Message: msgNoScreenrecord}
	case recErr != nil && !errors.Is(recErr, errStoreGone):
		return recordResult{}, recErr
	case errors.As(err, &big):
		return recordResult{}, &connector.Error{Code: connector.CodeToolInvokeFailed, Message: msgRecordTooLarge}
	case err != nil:
		return recordResult{}, fmt.Errorf("screen record: %w", err)
	}
	return recordResult{FileResult: fileResult(ref, info.Width, info.Height), DurationMS: info.Duration.Milliseconds()}, nil
}

// errStoreGone ends a pull whose file store stopped reading.
var errStoreGone = errors.New("the file store stopped reading")
