package android

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
	version uint64
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

// screenshotLocked returns the current frame (shared: do not modify).
func (d *Device) screenshotLocked() *image.RGBA {
	if d.render.valid && d.render.version == d.st.version {
		return d.render.img
	}
	d.render = renderCache{version: d.st.version, valid: true, img: d.renderLocked()}
	return d.render.img
}

// screenshotPNGLocked returns the current frame as PNG: cached while the
// screen is unchanged, or encoded afresh with EncodeEveryCapture.
func (d *Device) screenshotPNGLocked() []byte {
	img := d.screenshotLocked()
	if d.encodeEv {
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

// SetEncodeEveryCapture switches Config.EncodeEveryCapture: on, every
// `screencap -p` encodes a fresh PNG as a phone does; off, the PNG of an
// unchanged screen comes from a cache.
func (d *Device) SetEncodeEveryCapture(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.encodeEv = on
}

// Screenshot returns the current frame as the device would capture it.
func (d *Device) Screenshot() *image.RGBA {
	d.mu.Lock()
	defer d.mu.Unlock()
	img := d.screenshotLocked()
	out := image.NewRGBA(img.Rect)
	copy(out.Pix, img.Pix)
	return out
}

func (d *Device) renderLocked() *image.RGBA {
	ds := d.displaySize()
	img := image.NewRGBA(image.Rect(0, 0, ds.X, ds.Y))
	if !d.st.screenOn {
		draw.Draw(img, img.Rect, image.NewUniform(ui.Black), image.Point{}, draw.Src)
		return img
	}
	if !d.st.locked {
		t := d.top()
		if s := d.screenDef(t.screens[len(t.screens)-1]); len(s.PNGData) > 0 {
			if src, err := png.Decode(bytes.NewReader(s.PNGData)); err == nil {
				xdraw.NearestNeighbor.Scale(img, img.Rect, src, src.Bounds(), draw.Src, nil)
				return img
			}
		}
	}
	draw.Draw(img, img.Rect, image.NewUniform(ui.White), image.Point{}, draw.Src)
	dens := d.screen.Density
	if d.st.wmDens != 0 {
		dens = d.st.wmDens
	}
	scale := max(dens/160, 1)
	if root := d.tree(); root != nil {
		ui.DrawNode(img, root, scale)
	}
	if d.st.anr != "" && !d.st.locked {
		// A system dialog dims what is behind it (FLAG_DIM_BEHIND).
		for i := 0; i < len(img.Pix); i += 4 {
			for j := i; j < i+3; j++ {
				img.Pix[j] = uint8(int(img.Pix[j]) * 2 / 5)
			}
		}
		ui.DrawNode(img, d.mapToDisplay(d.anrDialog()), scale)
	}
	return img
}
