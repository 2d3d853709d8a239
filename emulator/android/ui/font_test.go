package ui

import (
	"image"
	"testing"
)

// TestTextRendersInAnyScript draws a screen (as the phone renders it) of Cyrillic, CJK, Arabic,
// Hangul and emoji text and reads every character cell back from the
// screenshot: each must hold ink and differ from the fallback box; a
// private-use character (no font has it) must be the box.
func TestTextRendersInAnyScript(t *testing.T) {
	t.Parallel()
	texts := []string{"Привет, мир", "设置 網絡 日本語", "مرحبا بالعالم", "안녕하세요", "😀🚀", "\ue000"}
	root := &Element{Class: "android.widget.FrameLayout", B: image.Rect(0, 0, 720, 1280)}
	for i, s := range texts {
		root.Children = append(root.Children, &Element{Class: "android.widget.TextView", Text: s, B: image.Rect(0, i*100, 720, i*100+100)})
	}
	// 720x1280 at 320 dpi, as the phone draws it: font pixels are 2x2.
	shot := image.NewRGBA(image.Rect(0, 0, 720, 1280))
	fill(shot, shot.Rect, White)
	DrawNode(shot, root, 2)
	const s = 2
	for i, text := range texts {
		b := image.Rect(0, i*100, 720, i*100+100)
		x, y := b.Min.X+8*s, b.Min.Y+(b.Dy()-GlyphH*s)/2
		for _, r := range visualOrder(text) {
			_, wide, mark := unifont().glyph(r)
			w := advance(wide, mark)
			cell := readCell(shot, x, y, w, s)
			ink := 0
			for _, row := range cell {
				for v := row; v != 0; v &= v - 1 {
					ink++
				}
			}
			isBox := w == 8 && equalRows(cell, boxGlyph)
			if r == '\ue000' {
				if !isBox {
					t.Errorf("U+E000 (no glyph) drew %x, want the box", cell)
				}
			} else if r != ' ' && (ink == 0 || isBox) {
				t.Errorf("%q in %q: ink %d, box %t", r, text, ink, isBox)
			}
			x += w * s
		}
	}
}

// readCell reads a w-wide glyph cell at x, y of a screenshot drawn at
// scale s: bit 15 is the leftmost pixel; dark pixels are ink.
func readCell(img *image.RGBA, x, y, w, s int) []uint16 {
	rows := make([]uint16, GlyphH)
	for gy := range GlyphH {
		for gx := range w {
			if c := img.RGBAAt(x+gx*s, y+gy*s); int(c.R)+int(c.G)+int(c.B) < 3*0x80 {
				rows[gy] |= 1 << (15 - gx)
			}
		}
	}
	return rows
}

func equalRows(cell []uint16, glyph []byte) bool {
	for i, g := range glyph {
		if cell[i] != uint16(g)<<8 {
			return false
		}
	}
	return true
}

// TestFontDecodes: the embedded font decodes and covers the scripts the
// screenshots promise.
func TestFontDecodes(t *testing.T) {
	t.Parallel()
	f, err := DecodeFont(UnifontGz)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range "AЖΩ中한あאم😀" {
		if rows, _, _ := f.glyph(r); &rows[0] == &boxGlyph[0] {
			t.Errorf("%q has no glyph", r)
		}
	}
	if _, err := DecodeFont(UnifontGz[:len(UnifontGz)/2]); err == nil {
		t.Error("a truncated font decoded")
	}
	// A font that failed to decode is empty: text draws as boxes, nothing panics.
	if rows, wide, mark := (&bitmapFont{}).glyph('A'); &rows[0] != &boxGlyph[0] || wide || mark {
		t.Error("an empty font did not fall back to the box")
	}
}
