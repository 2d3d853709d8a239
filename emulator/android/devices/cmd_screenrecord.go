package devices

import (
	"bytes"
	"image"
	"image/jpeg"
	"strconv"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
	xdraw "golang.org/x/image/draw"
)

// maxRecordFrames caps the frames stored (one per second).
const maxRecordFrames = 30

// Screenrecord: `screenrecord [--time-limit N] [--size WxH]
// [--bit-rate R] [--verbose] FILE` writes a small valid MP4 (see
// encodeMP4) of N seconds (default and maximum 180, as on Android). With
// Config.RealTimeRecord it takes N seconds and samples the screen each
// second; otherwise it writes at once, every frame the current screen.
func Screenrecord(c *shell.Ctx) int {
	limit := 180
	var size image.Point
	file := ""
	args := c.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		val := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a {
		case "--time-limit":
			n, err := strconv.Atoi(val())
			if err != nil || n < 1 || n > 180 {
				c.Errorf("Time limit %s seconds out of range (1 to 180)\n", args[i])
				return 1
			}
			limit = n
		case "--size":
			w, h, ok := model.ParseWxH(val())
			if !ok {
				c.Errorf("Invalid size '%s', must be width x height\n", args[i])
				return 2
			}
			size = image.Pt(w, h)
		case "--bit-rate", "--display-id":
			val()
		case "--verbose", "--rotate", "--bugreport":
		default:
			file = a
		}
	}
	if file == "" {
		c.Errorf("Must specify output file (see --help).\n")
		return 2
	}
	realTime := dev(c).cfg.RealTimeRecord || dev(c).p.Prof.RealTimeRecord
	frames := make([][]byte, 0, min(limit, maxRecordFrames))
	var frameSize image.Point
	for i := range limit {
		if i >= maxRecordFrames {
			break
		}
		if realTime && i > 0 && !c.Charge(time.Second) {
			break
		}
		dev(c).p.Lock()
		img := dev(c).p.ScreenshotLocked()
		dev(c).p.Unlock()
		var src image.Image = img
		if size != (image.Point{}) {
			dst := image.NewRGBA(image.Rectangle{Max: size})
			xdraw.ApproxBiLinear.Scale(dst, dst.Rect, img, img.Rect, xdraw.Src, nil)
			src = dst
		}
		frameSize = src.Bounds().Size()
		var b bytes.Buffer
		if err := jpeg.Encode(&b, src, &jpeg.Options{Quality: 60}); err != nil {
			c.Errorf("ERROR: encoder failed: %v\n", err)
			return 1
		}
		frames = append(frames, b.Bytes())
	}
	if realTime && len(frames) > 0 {
		// Wait out the time limit (frames were sampled at 0, 1, ...
		// len-1 s); a closed stream ends the wait and keeps what was
		// recorded, as screenrecord does on SIGINT.
		c.Charge(time.Duration(limit-len(frames)+1) * time.Second)
	}
	if len(frames) == 0 {
		return shell.ExitCanceled
	}
	if err := c.WriteFile(file, ui.EncodeMP4(frames, frameSize.X, frameSize.Y)); err != nil {
		c.Errorf("Unable to open '%s': %s\n", file, shell.ErrText(err))
		return 1
	}
	return 0
}
