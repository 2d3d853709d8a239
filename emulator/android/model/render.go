package model

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"sync"

	"github.com/adb-connector/adb-connector/emulator/android/ui"
	xdraw "golang.org/x/image/draw"
)

// renderCache holds the last rendering until the UI changes.
type renderCache struct {
	Version uint64
	valid   bool
	img     *image.RGBA
	png     []byte
}

var pngEnc = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &pngPool{}}

type pngPool struct{ p sync.Pool }

func (p *pngPool) Get() *png.EncoderBuffer {
	b, _ := p.p.Get().(*png.EncoderBuffer)
	return b
}
func (p *pngPool) Put(b *png.EncoderBuffer) { p.p.Put(b) }

// ScreenshotLocked returns the current frame (shared: do not modify).
func (d *Phone) ScreenshotLocked() *image.RGBA {
	if d.render.valid && d.render.Version == d.State.Version {
		return d.render.img
	}
	d.render = renderCache{Version: d.State.Version, valid: true, img: d.RenderLocked()}
	return d.render.img
}

// ScreenshotPNGLocked returns the current frame as PNG: cached while the
// screen is unchanged, or encoded afresh with EncodeEveryCapture.
func (d *Phone) ScreenshotPNGLocked() []byte {
	img := d.ScreenshotLocked()
	if d.EncodeEvery {
		var b bytes.Buffer
		pngEnc.Encode(&b, img)
		return b.Bytes()
	}
	if d.render.png == nil {
		var b bytes.Buffer
		pngEnc.Encode(&b, img)
		d.render.png = b.Bytes()
	}
	return d.render.png
}

func (d *Phone) RenderLocked() *image.RGBA {
	ds := d.DisplaySize()
	img := image.NewRGBA(image.Rect(0, 0, ds.X, ds.Y))
	if !d.State.ScreenOn {
		draw.Draw(img, img.Rect, image.NewUniform(ui.Black), image.Point{}, draw.Src)
		return img
	}
	if !d.State.Locked {
		t := d.Top()
		if s := d.ScreenDef(t.Screens[len(t.Screens)-1]); len(s.PNGData) > 0 {
			if src, err := png.Decode(bytes.NewReader(s.PNGData)); err == nil {
				xdraw.NearestNeighbor.Scale(img, img.Rect, src, src.Bounds(), draw.Src, nil)
				return img
			}
		}
	}
	draw.Draw(img, img.Rect, image.NewUniform(ui.White), image.Point{}, draw.Src)
	dens := d.Screen.Density
	if d.State.WmDens != 0 {
		dens = d.State.WmDens
	}
	scale := max(dens/160, 1)
	if root := d.Tree(); root != nil {
		ui.DrawNode(img, root, scale)
	}
	if d.State.ANR != "" && !d.State.Locked {
		// A system dialog dims what is behind it (FLAG_DIM_BEHIND).
		for i := 0; i < len(img.Pix); i += 4 {
			for j := i; j < i+3; j++ {
				img.Pix[j] = uint8(int(img.Pix[j]) * 2 / 5)
			}
		}
		ui.DrawNode(img, d.MapToDisplay(d.ANRDialog()), scale)
	}
	return img
}
