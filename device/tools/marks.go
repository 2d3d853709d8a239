package tools

import (
	"context"
	"errors"
	"fmt"
	"image"

	"golang.org/x/sync/errgroup"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/imageproc"
	"github.com/adb-connector/adb-connector/files"
)

// Marked screenshots (marks: true on android_screenshot and
// android_observe): the listed elements' boxes and refs drawn on a copy of
// the screenshot (imageproc.EncodeMarked), for models that point better at
// a label than at coordinates. Both images come from one capture and the
// refs from the dump taken with it, so a label taps with the result's
// screen_id. The unmarked image is returned as always; the marked one is
// a second file under marked.

// MarkedImage is the marked copy of a screenshot: the file fields, the
// screen_id its labels belong to and how many elements it marks.
type MarkedImage struct {
	FileResult
	ScreenID string `json:"screen_id"`
	Marks    int    `json:"marks"`
}

// marksProperty is the marks argument of android_screenshot and
// android_observe.
func marksProperty(props map[string]any) {
	props["marks"] = map[string]any{"type": "boolean", "default": false,
		"description": "Also return, under marked, a copy of the image with each listed element's box and ref label " +
			"drawn on it (android_screenshot: the meaningful elements), with the screen_id the refs belong to."}
}

// frame is one capture kept as pixels until its images are encoded.
type frame struct {
	shot *adb.Screenshot
	img  image.Image
}

// grabFrame captures d's screen as pixels. The caller releases it.
func grabFrame(ctx context.Context, d *adb.Device) (*frame, error) {
	shot, err := d.Screenshot(ctx, adb.UsePixels)
	if err != nil {
		return nil, err
	}
	f := &frame{shot: shot, img: shot.Image}
	if f.img == nil {
		if f.img, err = imageproc.Decode(shot.PNG); err != nil {
			shot.Release()
			return nil, fmt.Errorf("screenshot: %w", err)
		}
	}
	return f, nil
}

func (f *frame) release() {
	if f != nil {
		f.shot.Release()
	}
}

// storeMarked encodes f as a asks, the tool's defaults d filling what it
// leaves unset (android_observe's 1024 px JPEG unless told otherwise),
// plain and with es marked, and stores both.
func (t *Tools) storeMarked(ctx context.Context, inv *invocation, a screenshotArgs, d shotDefaults, f *frame, s *screen, es []element) (ScreenshotResult, error) {
	maxSide, format, quality := a.resolve(d)
	t.metrics.screenshotCaptures.WithLabelValues(f.shot.Mode.String()).Inc()
	img, w, h, scale, err := imageproc.Encode(f.img, maxSide, format, quality)
	if err != nil {
		return ScreenshotResult{}, imageError(err)
	}
	res := ScreenshotResult{Scale: scale}
	if res.FileResult, err = t.storeImage(ctx, inv, "screenshot", format, img, w, h); err != nil {
		return ScreenshotResult{}, err
	}
	marks := make([]imageproc.Mark, len(es))
	for i, e := range es {
		marks[i] = imageproc.Mark{Box: image.Rect(e.Bounds[0], e.Bounds[1], e.Bounds[2], e.Bounds[3]), Label: e.Ref}
	}
	img, w, h, _, err = imageproc.EncodeMarked(f.img, marks, maxSide, format, quality)
	if err != nil {
		return ScreenshotResult{}, imageError(err)
	}
	m := &MarkedImage{ScreenID: s.id, Marks: len(marks)}
	if m.FileResult, err = t.storeImage(ctx, inv, "screenshot-marked", format, img, w, h); err != nil {
		return ScreenshotResult{}, err
	}
	res.Marked = m
	return res, nil
}

// imageError is an encoding error as the tools report it.
func imageError(err error) error {
	if errors.Is(err, imageproc.ErrInvalidArgument) {
		return &argError{Reason: "format or quality not supported"}
	}
	return fmt.Errorf("screenshot: %w", err)
}

// storeImage stores an encoded image for download.
func (t *Tools) storeImage(ctx context.Context, inv *invocation, what, format string, img []byte, w, h int) (FileResult, error) {
	t.metrics.screenshotBytes.WithLabelValues(format).Observe(float64(len(img)))
	mime, ext := "image/png", ".png"
	if format == imageproc.FormatJPEG {
		mime, ext = "image/jpeg", ".jpg"
	}
	ref, err := t.putFile(ctx, inv, files.Meta{MIMEType: mime, Filename: t.fileName(what, ext), Width: w, Height: h}, img, nil)
	if err != nil {
		return FileResult{}, fmt.Errorf("screenshot: %w", err)
	}
	return fileResult(ref, w, h), nil
}

// runMarkedScreenshot is android_screenshot with marks: one capture and
// one dump at once, the meaningful elements marked, the images as a and
// the tool's defaults d say.
func (t *Tools) runMarkedScreenshot(ctx context.Context, inv *invocation, a screenshotArgs, d shotDefaults) (any, error) {
	var (
		f *frame
		s *screen
	)
	defer func() { f.release() }()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { f, err = grabFrame(gctx, inv.dev); return })
	g.Go(func() (err error) { s, err = t.dump(gctx, inv.dev); return })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	es, _ := s.elements(filterMeaningful, "", defaultMaxElements)
	t.sent.put(inv.call.Channel.ID, inv.meta.Key, s, nil)
	return t.storeMarked(ctx, inv, a, d, f, s, es)
}
