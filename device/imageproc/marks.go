package imageproc

import (
	"image"
	"image/color"
)

// Set-of-marks: vision models name an element far more reliably by a label
// drawn on it than by coordinates (Yang et al., "Set-of-Mark Prompting
// Unleashes Extraordinary Visual Grounding in GPT-4V", 2023). Marks are
// drawn after shrinking, at the output's scale, so a label stays legible
// at any max_side. They must survive JPEG 4:2:0, which halves colour
// resolution: strokes are at least 2 output pixels wide and labels are
// white glyphs on a dark saturated fill, a contrast of luma that chroma
// subsampling does not blur away.

// Mark is one element to draw: its box in the source image's pixels and
// its label (an element ref such as "e12": digits and lower-case letters).
type Mark struct {
	Box   image.Rectangle
	Label string
}

// markColors are the fills and strokes, cycled by mark: each dark enough
// (luma below 110) for white glyphs, and far apart in hue from its
// neighbours so adjacent boxes are told apart.
var markColors = []color.RGBA{
	{200, 0, 0, 255},   // red
	{0, 70, 220, 255},  // blue
	{0, 130, 0, 255},   // green
	{170, 0, 170, 255}, // magenta
	{180, 80, 0, 255},  // dark orange
	{90, 0, 200, 255},  // violet
}

// EncodeMarked is Encode with marks drawn on the shrunk image: each box's
// outline and its label in a filled tag at a corner of the box, placed
// where it covers no earlier tag when a corner allows. img is not
// modified.
func EncodeMarked(img image.Image, marks []Mark, maxSide int, format string, quality int) (out []byte, w, h int, scale float64, err error) {
	format, quality, w, h, err = checkEncode(img, maxSide, format, quality)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	b := img.Bounds()
	var dst *image.RGBA
	if w != b.Dx() || h != b.Dy() {
		dst = boxResize(asRGBA(img), w, h)
	} else {
		src := asRGBA(img)
		dst = image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			o := src.PixOffset(b.Min.X, b.Min.Y+y)
			copy(dst.Pix[y*dst.Stride:y*dst.Stride+4*w], src.Pix[o:o+4*w])
		}
	}
	drawMarks(dst, marks, float64(w)/float64(b.Dx()), float64(h)/float64(b.Dy()), b.Min)
	out, err = encode(dst, format, quality)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	return out, w, h, float64(max(b.Dx(), b.Dy())) / float64(max(w, h)), nil
}

// drawMarks draws marks (source coordinates from origin, scaled by sx, sy)
// on dst: all outlines first, then the tags, so no outline crosses a tag.
func drawMarks(dst *image.RGBA, marks []Mark, sx, sy float64, origin image.Point) {
	long := max(dst.Rect.Dx(), dst.Rect.Dy())
	// Glyph pixels: 5x7 cells of g pixels; about 1.4% of the long side,
	// so a tag is 14 pixels tall at 1024 and never under 9.
	g := max(1, (long+250)/500)
	stroke := max(2, g)
	boxes := make([]image.Rectangle, len(marks))
	for i, m := range marks {
		r := m.Box.Sub(origin)
		boxes[i] = image.Rect(int(float64(r.Min.X)*sx), int(float64(r.Min.Y)*sy),
			int(float64(r.Max.X)*sx+0.5), int(float64(r.Max.Y)*sy+0.5)).Intersect(dst.Rect)
		outline(dst, boxes[i], stroke, markColors[i%len(markColors)])
	}
	var placed []image.Rectangle
	for i, m := range marks {
		if boxes[i].Empty() {
			continue
		}
		pad := g
		tw, th := len(m.Label)*6*g-g+2*pad, 7*g+2*pad
		tag := placeTag(boxes[i], tw, th, dst.Rect, placed)
		placed = append(placed, tag)
		c := markColors[i%len(markColors)]
		fill(dst, tag, c)
		x := tag.Min.X + pad
		for _, ch := range m.Label {
			glyph(dst, x, tag.Min.Y+pad, g, ch)
			x += 6 * g
		}
	}
}

// placeTag picks where a tw x th tag of box goes: above its top-left
// corner, inside it at top-left, below its bottom-left, inside at
// top-right; the first that stays in bounds and covers no placed tag,
// else the first in bounds.
func placeTag(box image.Rectangle, tw, th int, bounds image.Rectangle, placed []image.Rectangle) image.Rectangle {
	cands := []image.Point{
		{box.Min.X, box.Min.Y - th},
		{box.Min.X, box.Min.Y},
		{box.Min.X, box.Max.Y},
		{box.Max.X - tw, box.Min.Y},
		{box.Max.X - tw, box.Max.Y - th},
	}
	var first image.Rectangle
	for _, p := range cands {
		r := image.Rect(p.X, p.Y, p.X+tw, p.Y+th)
		if !r.In(bounds) {
			// Pushed inside the image rather than dropped.
			r = r.Add(image.Pt(max(0, bounds.Min.X-r.Min.X)+min(0, bounds.Max.X-r.Max.X),
				max(0, bounds.Min.Y-r.Min.Y)+min(0, bounds.Max.Y-r.Max.Y)))
		}
		if first.Empty() {
			first = r
		}
		free := true
		for _, q := range placed {
			if r.Overlaps(q) {
				free = false
				break
			}
		}
		if free {
			return r
		}
	}
	return first
}

func fill(dst *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(dst.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			o := dst.PixOffset(x, y)
			dst.Pix[o], dst.Pix[o+1], dst.Pix[o+2], dst.Pix[o+3] = c.R, c.G, c.B, 255
		}
	}
}

func outline(dst *image.RGBA, r image.Rectangle, t int, c color.RGBA) {
	if r.Empty() {
		return
	}
	fill(dst, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+t), c)
	fill(dst, image.Rect(r.Min.X, r.Max.Y-t, r.Max.X, r.Max.Y), c)
	fill(dst, image.Rect(r.Min.X, r.Min.Y, r.Min.X+t, r.Max.Y), c)
	fill(dst, image.Rect(r.Max.X-t, r.Min.Y, r.Max.X, r.Max.Y), c)
}

// glyph draws ch in white, 5x7 cells of g pixels from (x, y).
func glyph(dst *image.RGBA, x, y, g int, ch rune) {
	rows, ok := font5x7[ch]
	if !ok {
		rows = font5x7['?']
	}
	white := color.RGBA{255, 255, 255, 255}
	for j, row := range rows {
		for i := range 5 {
			if row&(0x10>>i) != 0 {
				fill(dst, image.Rect(x+i*g, y+j*g, x+(i+1)*g, y+(j+1)*g), white)
			}
		}
	}
}

// font5x7 holds the glyphs of refs: rows top to bottom, bit 4 the left
// column (the classic HD44780 character ROM's 5x7 shapes).
var font5x7 = map[rune][7]uint8{
	'0': {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E},
	'1': {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},
	'2': {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F},
	'3': {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},
	'4': {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02},
	'5': {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},
	'6': {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E},
	'7': {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
	'8': {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E},
	'9': {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},
	'e': {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E},
	'?': {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04},
}
