package ui

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"image"
	"image/color"
	"io"
	"slices"
	"sync"
	"unicode"
)

// unifontGz is GNU Unifont's 16-pixel bitmaps (the Basic Multilingual
// Plane and plane 1's emoji), built by internal/fontgen from Debian's
// fonts-unifont; fontdata/README.md names the source and licence. One
// font covers Latin, Cyrillic, Greek, Arabic, Hebrew, Indic scripts, CJK,
// Hangul and emoji, so screenshots show what the dump says.
//
//go:embed fontdata/unifont.bin.gz
var UnifontGz []byte

// FontNotice is the copyright notice and licence (SIL OFL 1.1) of the font
// screenshots are drawn with; the licence asks that it ship with the font.
//
//go:embed fontdata/OFL.txt
var FontNotice string

// glyphH is the height of every glyph; widths are 8 or 16.
const GlyphH = 16

// bitmapFont is the decoded font: code points (bit 31: 16 wide; bit 30: a
// combining mark, drawn over the previous character) in ascending order,
// each glyph's offset into bits.
type bitmapFont struct {
	cps  []uint32
	offs []uint32
	bits []byte
}

// unifont decodes the embedded font once, on the first text drawn (about
// 2 MiB). A damaged font leaves an empty one: every character is a box.
var unifont = sync.OnceValue(func() *bitmapFont {
	f, err := DecodeFont(UnifontGz)
	if err != nil {
		return &bitmapFont{}
	}
	return f
})

func DecodeFont(gz []byte) (*bitmapFont, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	if len(raw) < 12 || string(raw[:8]) != "EMUFONT1" {
		return nil, io.ErrUnexpectedEOF
	}
	n := int(binary.BigEndian.Uint32(raw[8:]))
	if len(raw) < 12+4*n {
		return nil, io.ErrUnexpectedEOF
	}
	f := &bitmapFont{cps: make([]uint32, n), offs: make([]uint32, n)}
	off := uint32(0)
	for i := range n {
		e := binary.BigEndian.Uint32(raw[12+4*i:])
		f.cps[i], f.offs[i] = e, off
		off += GlyphH
		if e>>31 == 1 {
			off += GlyphH
		}
	}
	f.bits = raw[12+4*n:]
	if uint32(len(f.bits)) < off {
		return nil, io.ErrUnexpectedEOF
	}
	return f, nil
}

// boxGlyph is drawn for a character the font lacks: an empty box, as
// Android draws when no font covers a character ("tofu").
var boxGlyph = []byte{0, 0, 0x7e, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x7e, 0, 0}

// glyph returns the rows of r (one byte per row when 8 wide, two when 16
// wide), whether it is 16 wide and whether it is a combining mark; a
// missing character gives boxGlyph.
func (f *bitmapFont) glyph(r rune) (rows []byte, wide, mark bool) {
	i, ok := slices.BinarySearchFunc(f.cps, uint32(r), func(e, t uint32) int { return int(e&^(3<<30)) - int(t) })
	if !ok {
		return boxGlyph, false, false
	}
	wide, mark = f.cps[i]>>31 == 1, f.cps[i]>>30&1 == 1
	n := uint32(GlyphH)
	if wide {
		n *= 2
	}
	return f.bits[f.offs[i] : f.offs[i]+n], wide, mark
}

// advance is how far a glyph moves the pen, in font pixels.
func advance(wide, mark bool) int {
	switch {
	case mark:
		return 0
	case wide:
		return 16
	}
	return 8
}

// TextWidth is the width of text in font pixels (before scaling).
func TextWidth(text string) int {
	f := unifont()
	w := 0
	for _, r := range text {
		_, wide, mark := f.glyph(r)
		w += advance(wide, mark)
	}
	return w
}

// visualOrder returns the characters of text in drawing order: Arabic
// letters in their joined forms (shapeArabic), and the whole text
// reversed when its first strong character is right-to-left (Arabic,
// Hebrew), a one-level stand-in for the Unicode bidirectional algorithm.
func visualOrder(text string) []rune {
	rs := shapeArabic([]rune(text))
	for _, r := range rs {
		if unicode.In(r, unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana) {
			slices.Reverse(rs)
			break
		}
		if unicode.IsLetter(r) {
			break
		}
	}
	return rs
}

// arabicForms maps the basic Arabic letters (U+0621-U+064A) to their
// first presentation form in Arabic Presentation Forms-B and the number of
// forms: 1 (never joins), 2 (isolated, final: joins only to the right) or
// 4 (isolated, final, initial, medial), in the order of the Unicode
// charts for U+FE80-U+FEF4.
var arabicForms = func() map[rune][2]int {
	m := map[rune][2]int{}
	base := 0xFE80
	counts := []struct {
		from, to rune
		n        int
	}{
		{0x0621, 0x0621, 1}, {0x0622, 0x0625, 2}, {0x0626, 0x0626, 4}, {0x0627, 0x0627, 2}, {0x0628, 0x0628, 4},
		{0x0629, 0x0629, 2}, {0x062A, 0x062E, 4}, {0x062F, 0x0632, 2}, {0x0633, 0x063A, 4}, {0x0641, 0x0647, 4},
		{0x0648, 0x0649, 2}, {0x064A, 0x064A, 4},
	}
	for _, c := range counts {
		for r := c.from; r <= c.to; r++ {
			m[r] = [2]int{base, c.n}
			base += c.n
		}
	}
	return m
}()

// shapeArabic replaces Arabic letters by the presentation form their
// neighbours call for (isolated, final, initial, medial), the contextual
// shaping a text engine does; marks between letters are transparent.
func shapeArabic(rs []rune) []rune {
	joins := func(i, step int) (rune, bool) { // the nearest non-mark neighbour
		for i += step; i >= 0 && i < len(rs); i += step {
			if !unicode.Is(unicode.Mn, rs[i]) {
				return rs[i], true
			}
		}
		return 0, false
	}
	dual := func(r rune) bool { f, ok := arabicForms[r]; return ok && f[1] == 4 || r == 0x0640 }
	joining := func(r rune) bool { f, ok := arabicForms[r]; return ok && f[1] > 1 || r == 0x0640 }
	out := slices.Clone(rs)
	for i, r := range rs {
		f, ok := arabicForms[r]
		if !ok || f[1] == 1 {
			continue
		}
		form := 0
		if p, ok := joins(i, -1); ok && dual(p) {
			form = 1
		}
		if n, ok := joins(i, 1); ok && f[1] == 4 && joining(n) {
			form += 2
		}
		out[i] = rune(f[0] + form)
	}
	return out
}

// DrawText draws text with the bitmap font scaled by s at x, y (top left),
// clipped to clip.
func DrawText(img *image.RGBA, x, y, s int, c color.RGBA, text string, clip image.Rectangle) {
	f := unifont()
	clip = clip.Intersect(img.Rect)
	for _, r := range visualOrder(text) {
		rows, wide, mark := f.glyph(r)
		if x >= clip.Max.X {
			return
		}
		gx0 := x
		if mark {
			// Over the previous character, right-aligned with it.
			gx0 = x - 8*s
			if wide {
				gx0 = x - 16*s
			}
		}
		for gy := range GlyphH {
			var bits uint16
			if wide {
				bits = uint16(rows[2*gy])<<8 | uint16(rows[2*gy+1])
			} else {
				bits = uint16(rows[gy]) << 8
			}
			for gx := 0; bits != 0; gx++ {
				if bits&0x8000 != 0 {
					fillFast(img, image.Rect(gx0+gx*s, y+gy*s, gx0+(gx+1)*s, y+(gy+1)*s).Intersect(clip), c)
				}
				bits <<= 1
			}
		}
		x += advance(wide, mark) * s
	}
}

// fillFast paints r (already clipped to img) with c, row by row.
func fillFast(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	if r.Empty() {
		return
	}
	px := [4]byte{c.R, c.G, c.B, c.A}
	for yy := r.Min.Y; yy < r.Max.Y; yy++ {
		i := img.PixOffset(r.Min.X, yy)
		for xx := r.Min.X; xx < r.Max.X; xx++ {
			copy(img.Pix[i:i+4], px[:])
			i += 4
		}
	}
}
