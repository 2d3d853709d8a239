package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/imageproc"
	"github.com/adb-connector/adb-connector/files"
)

// Screenshot argument bounds and defaults.
const (
	minScreenshotSide  = 64
	maxScreenshotSide  = 4096
	defaultJPEGQuality = 80
	// observeMaxSide and observeJPEGQuality are android_observe's image
	// defaults: what a model reads well at a tenth of a full PNG's bytes
	// (the Skill advises them), where android_screenshot defaults to the
	// full-size PNG an operator or a pixel check wants.
	observeMaxSide     = 1024
	observeJPEGQuality = 75
)

// shotDefaults are a tool's image defaults: the longest side (0: full
// size), the format and the JPEG quality.
type shotDefaults struct {
	maxSide int
	format  string
	quality int
}

var (
	screenshotDefaults = shotDefaults{0, imageproc.FormatPNG, defaultJPEGQuality}
	observeDefaults    = shotDefaults{observeMaxSide, imageproc.FormatJPEG, observeJPEGQuality}
)

// ScreenshotResult is android_screenshot's result: the file fields
// (FileResult) plus Scale, which maps image pixels to device pixels
// (device_px = image_px * scale; 1 when not resized).
type ScreenshotResult struct {
	FileResult
	Scale float64 `json:"scale"`
}

func screenshotTool(t *Tools) *toolDef {
	return declare(t, decl[screenshotArgs]{
		id: "android_screenshot", title: "Android screenshot",
		props: screenshotProperties(screenshotDefaults), readOnly: true, run: (*Tools).runScreenshot,
		description: "Captures the bound phone's screen and returns a file_ref with a relative download_url (the image " +
			"is never inline). width/height are the image's pixels; multiply image coordinates by scale to get device " +
			"pixels for android_tap. Optional max_side shrinks the longest side (64-4096; default: full size); " +
			"format png (default, lossless) or jpeg with quality 1-100 (default 80). For looking at the screen, " +
			"android_observe (a 1024 px JPEG by default) is smaller and faster. The file expires at expires_at.",
	})
}

// screenshotProperties are android_screenshot's arguments, which
// android_observe takes too, each with its tool's default d.
func screenshotProperties(d shotDefaults) map[string]any {
	side := map[string]any{"type": "integer", "minimum": minScreenshotSide, "maximum": maxScreenshotSide,
		"description": "Longest side of the returned image in pixels; never enlarged. Default: device size."}
	if d.maxSide > 0 {
		side["default"] = d.maxSide
		side["description"] = fmt.Sprintf("Longest side of the returned image in pixels; never enlarged. Default: %d (%d for the device's full size).", d.maxSide, maxScreenshotSide)
	}
	return map[string]any{
		"max_side": side,
		"format": map[string]any{"type": "string", "enum": []any{"png", "jpeg"}, "default": d.format,
			"description": "Image format."},
		"quality": map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "default": d.quality,
			"description": "JPEG quality (jpeg only)."},
	}
}

// screenshotArgs are android_screenshot's arguments.
type screenshotArgs struct {
	MaxSide int    `json:"max_side"` // 0: the tool's default (shotDefaults)
	Format  string `json:"format"`   // "": the tool's default
	Quality *int   `json:"quality"`  // nil: the tool's default
}

// resolve fills what a leaves unset from the tool's defaults d.
func (a screenshotArgs) resolve(d shotDefaults) (maxSide int, format string, quality int) {
	maxSide, format, quality = cmp.Or(a.MaxSide, d.maxSide), cmp.Or(a.Format, d.format), d.quality
	if a.Quality != nil {
		quality = *a.Quality
	}
	return maxSide, format, quality
}

func (t *Tools) runScreenshot(ctx context.Context, inv *invocation, a screenshotArgs) (any, error) {
	if err := a.check(screenshotDefaults); err != nil {
		return nil, err
	}
	return t.capture(ctx, inv, a, screenshotDefaults)
}

// check refuses a quality without jpeg before anything runs.
func (a screenshotArgs) check(d shotDefaults) error {
	if a.Quality != nil && cmp.Or(a.Format, d.format) != imageproc.FormatJPEG {
		return &argError{Field: "quality", Reason: "applies to format jpeg only"}
	}
	return nil
}

// CaptureImage takes a screenshot of d and encodes it as imageproc.Resize
// does (maxSide 0: full size; format png or jpeg): the one capture path of
// android_screenshot, android_observe and the operator console's
// thumbnails, which never reach the file store. The screen leaves the
// phone raw or as a PNG as the device's measurements say
// (adb.Device.Screenshot). Errors of the device come as they are; an image
// error wraps an imageproc error.
func CaptureImage(ctx context.Context, d *adb.Device, maxSide int, format string, quality int) (img []byte, w, h int, scale float64, err error) {
	img, w, h, scale, _, err = captureImage(ctx, d, maxSide, format, quality)
	return img, w, h, scale, err
}

// captureImage is CaptureImage, also saying how the phone delivered the
// screen.
func captureImage(ctx context.Context, d *adb.Device, maxSide int, format string, quality int) (img []byte, w, h int, scale float64, mode adb.CaptureMode, err error) {
	// The whole screen as PNG needs no pixels: the phone's PNG as it is,
	// or a raw frame encoded once.
	// Anything else is an image made to measure: from the pixels here, or
	// by the phone helper (adb.CaptureHelper) when that is cheaper.
	use := adb.UseEncoded
	if cmp.Or(format, imageproc.FormatPNG) == imageproc.FormatPNG && maxSide <= 0 {
		use = adb.UsePNG
	}
	shot, err := d.ScreenshotFor(ctx, adb.ShotRequest{Use: use, MaxSide: maxSide, Format: cmp.Or(format, imageproc.FormatPNG), Quality: quality})
	if err != nil {
		return nil, 0, 0, 0, 0, err
	}
	defer shot.Release()
	img, w, h, scale, err = encodeShot(shot, maxSide, format, quality)
	if err != nil {
		return nil, 0, 0, 0, 0, fmt.Errorf("screenshot: %w", err)
	}
	return img, w, h, scale, shot.Mode, nil
}

// capture takes the screenshot a asks for, the tool's defaults d filling
// what it leaves unset, and stores it for download.
func (t *Tools) capture(ctx context.Context, inv *invocation, a screenshotArgs, d shotDefaults) (ScreenshotResult, error) {
	maxSide, format, quality := a.resolve(d)
	img, w, h, scale, mode, err := captureImage(ctx, inv.dev, maxSide, format, quality)
	if mode != 0 {
		t.metrics.screenshotCaptures.WithLabelValues(mode.String()).Inc()
	}
	if err != nil {
		if errors.Is(err, imageproc.ErrInvalidArgument) {
			return ScreenshotResult{}, &argError{Reason: "format or quality not supported"}
		}
		return ScreenshotResult{}, err
	}
	t.metrics.screenshotBytes.WithLabelValues(format).Observe(float64(len(img)))
	mime, ext := "image/png", ".png"
	if format == imageproc.FormatJPEG {
		mime, ext = "image/jpeg", ".jpg"
	}
	ref, err := t.putFile(ctx, inv, files.Meta{MIMEType: mime, Filename: t.fileName("screenshot", ext), Width: w, Height: h}, img, nil)
	if err != nil {
		return ScreenshotResult{}, fmt.Errorf("screenshot: %w", err)
	}
	return ScreenshotResult{FileResult: fileResult(ref, w, h), Scale: scale}, nil
}

// encodeShot turns a capture into the image asked for. A PNG of the
// whole screen, when that is what was asked for, is passed through
// untouched (Resize reads its header only); pixels in memory (a raw
// capture, or a PNG the capture decoded) are encoded without decoding
// anything; else the PNG is decoded first.
func encodeShot(shot *adb.Screenshot, maxSide int, format string, quality int) ([]byte, int, int, float64, error) {
	if shot.Mode == adb.CaptureHelper {
		// Made on the phone as asked: its scale is to the screen's size.
		img := shot.PNG
		if shot.JPEG != nil {
			img = shot.JPEG
		}
		return img, shot.Width, shot.Height, float64(max(shot.ScreenWidth, shot.ScreenHeight)) / float64(max(shot.Width, shot.Height)), nil
	}
	asIs := format == imageproc.FormatPNG && (maxSide <= 0 || max(shot.Width, shot.Height) <= maxSide)
	if shot.PNG != nil && (asIs || shot.Image == nil) {
		return imageproc.Resize(shot.PNG, maxSide, format, quality)
	}
	return imageproc.Encode(shot.Image, maxSide, format, quality)
}
