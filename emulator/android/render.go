package android

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strings"
	"sync"

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

var (
	white    = color.RGBA{0xff, 0xff, 0xff, 0xff}
	black    = color.RGBA{0, 0, 0, 0xff}
	gray     = color.RGBA{0x9e, 0x9e, 0x9e, 0xff}
	light    = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}
	accent   = color.RGBA{0x1a, 0x73, 0xe8, 0xff}
	switchOn = color.RGBA{0x34, 0xa8, 0x53, 0xff}
)

func (d *Device) renderLocked() *image.RGBA {
	ds := d.displaySize()
	img := image.NewRGBA(image.Rect(0, 0, ds.X, ds.Y))
	if !d.st.screenOn {
		draw.Draw(img, img.Rect, image.NewUniform(black), image.Point{}, draw.Src)
		return img
	}
	if !d.st.locked {
		t := d.top()
		if s := d.screenDef(t.screens[len(t.screens)-1]); len(s.png) > 0 {
			if src, err := png.Decode(bytes.NewReader(s.png)); err == nil {
				xdraw.NearestNeighbor.Scale(img, img.Rect, src, src.Bounds(), draw.Src, nil)
				return img
			}
		}
	}
	draw.Draw(img, img.Rect, image.NewUniform(white), image.Point{}, draw.Src)
	dens := d.screen.Density
	if d.st.wmDens != 0 {
		dens = d.st.wmDens
	}
	scale := max(dens/160, 1)
	if root := d.tree(); root != nil {
		drawNode(img, root, scale)
	}
	if d.st.anr != "" && !d.st.locked {
		// A system dialog dims what is behind it (FLAG_DIM_BEHIND).
		for i := 0; i < len(img.Pix); i += 4 {
			for j := i; j < i+3; j++ {
				img.Pix[j] = uint8(int(img.Pix[j]) * 2 / 5)
			}
		}
		drawNode(img, d.mapToDisplay(d.anrDialog()), scale)
	}
	return img
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r.Intersect(img.Rect), image.NewUniform(c), image.Point{}, draw.Src)
}

func outline(img *image.RGBA, r image.Rectangle, w int, c color.RGBA) {
	fill(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+w), c)
	fill(img, image.Rect(r.Min.X, r.Max.Y-w, r.Max.X, r.Max.Y), c)
	fill(img, image.Rect(r.Min.X, r.Min.Y, r.Min.X+w, r.Max.Y), c)
	fill(img, image.Rect(r.Max.X-w, r.Min.Y, r.Max.X, r.Max.Y), c)
}

func dark(c color.RGBA) bool { return int(c.R)*299+int(c.G)*587+int(c.B)*114 < 128000 }

// drawNode paints one element and its children: coloured boxes, buttons,
// text fields with an underline, switches, launcher icons, and text in
// the 16-pixel bitmap font (font.go) scaled by density/160.
func drawNode(img *image.RGBA, n *uiNode, s int) {
	b := n.B
	bg := white
	icon := strings.Contains(n.key, "/icon/")
	isButton := strings.Contains(n.Class, "Button") && !n.Checkable
	switch {
	case icon:
		side := min(b.Dx(), b.Dy()) * 3 / 5
		sq := image.Rect(b.Min.X+(b.Dx()-side)/2, b.Min.Y+side/6, b.Min.X+(b.Dx()+side)/2, b.Min.Y+side/6+side)
		fill(img, sq, n.color)
	case n.picture != "":
		drawPicture(img, b, n.picture, n.key)
		bg = black // text over a picture is drawn white
	case n.hasColor:
		fill(img, b, n.color)
		bg = n.color
	case isButton:
		fill(img, b, accent)
		bg = accent
	case n.Clickable && n.Text != "" && !n.field:
		outline(img, b, 1, light)
	}
	if n.field {
		c := gray
		if n.Focused {
			c = accent
		}
		fill(img, image.Rect(b.Min.X, b.Max.Y-2*s, b.Max.X, b.Max.Y), c)
	}
	if n.Checkable {
		w, h := 26*s, 14*s
		sw := image.Rect(b.Max.X-w-8*s, b.Min.Y+(b.Dy()-h)/2, b.Max.X-8*s, b.Min.Y+(b.Dy()+h)/2)
		if n.Checked {
			fill(img, sw, switchOn)
			fill(img, image.Rect(sw.Max.X-h, sw.Min.Y, sw.Max.X, sw.Max.Y), white)
			outline(img, image.Rect(sw.Max.X-h, sw.Min.Y, sw.Max.X, sw.Max.Y), 1, switchOn)
		} else {
			fill(img, sw, gray)
			fill(img, image.Rect(sw.Min.X, sw.Min.Y, sw.Min.X+h, sw.Max.Y), white)
			outline(img, image.Rect(sw.Min.X, sw.Min.Y, sw.Min.X+h, sw.Max.Y), 1, gray)
		}
	}
	text, tc := n.Text, black
	if n.Password {
		text = strings.Repeat("*", len([]rune(text)))
	}
	if text == "" && n.field {
		text, tc = n.Hint, gray
	}
	if dark(bg) {
		tc = white
	}
	if text != "" {
		tw := textWidth(text) * s
		th := glyphH * s
		x := b.Min.X + 8*s
		y := b.Min.Y + (b.Dy()-th)/2
		if isButton || icon {
			x = b.Min.X + max((b.Dx()-tw)/2, 0)
		}
		if icon {
			y = b.Max.Y - th - 4*s
		}
		drawText(img, x, y, s, tc, text, b)
	}
	for _, c := range n.Children {
		drawNode(img, c, s)
	}
}
