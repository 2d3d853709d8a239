// Command fontgen builds the bitmap font the virtual phone draws text with
// (emulator/android/ui/fontdata/unifont.bin.gz) from GNU Unifont's OpenType
// files, as Debian's fonts-unifont package installs them:
//
//	apt-get install fonts-unifont
//	go run ./emulator/android/ui/internal/fontgen -o emulator/android/ui/fontdata/unifont.bin.gz
//
// Unifont draws every glyph on a 16-pixel grid (8 or 16 wide), so
// rasterising it at 16 pixels per em gives its bitmaps exactly. The Basic
// Multilingual Plane comes from unifont.otf, plane 1's emoji and symbols
// from unifont_upper.otf.
//
// Output (gzip): "EMUFONT1", a big-endian uint32 count, that many uint32
// entries (code point; bit 31 set for a 16-wide glyph, bit 30 for a
// combining mark drawn over the previous character) in ascending order,
// then the bitmaps in the same order: 16 rows of 1 byte (8 wide) or 2
// bytes (16 wide), most significant bit leftmost.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"flag"
	"fmt"
	"image"
	"log"
	"os"
	"path/filepath"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// source is one font file and the code points taken from it.
type source struct {
	file   string
	ranges [][2]rune
}

func main() {
	dir := flag.String("fonts", "/usr/share/fonts/opentype/unifont", "directory holding unifont.otf and unifont_upper.otf")
	out := flag.String("o", "fontdata/unifont.bin.gz", "output file")
	flag.Parse()
	sources := []source{
		{"unifont.otf", [][2]rune{{0x20, 0xFFFD}}},
		// Plane 1: emoji and pictographs (U+1F000-U+1FAFF).
		{"unifont_upper.otf", [][2]rune{{0x1F000, 0x1FAFF}}},
	}
	var index []uint32
	var bitmaps bytes.Buffer
	for _, s := range sources {
		n, err := add(filepath.Join(*dir, s.file), s.ranges, &index, &bitmaps)
		if err != nil {
			log.Fatal(err)
		}
		log.Printf("%s: %d glyphs", s.file, n)
	}
	var raw bytes.Buffer
	raw.WriteString("EMUFONT1")
	binary.Write(&raw, binary.BigEndian, uint32(len(index)))
	binary.Write(&raw, binary.BigEndian, index)
	raw.Write(bitmaps.Bytes())
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(raw.Bytes())
	zw.Close()
	if err := os.WriteFile(*out, gz.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d glyphs, %d bytes raw, %d gzipped", len(index), raw.Len(), gz.Len())
}

// add rasterises the glyphs of file in ranges at 16 px per em.
func add(file string, ranges [][2]rune, index *[]uint32, bitmaps *bytes.Buffer) (int, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	f, err := sfnt.Parse(data)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 16, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return 0, err
	}
	defer face.Close()
	var buf sfnt.Buffer
	n := 0
	for _, rg := range ranges {
		for r := rg[0]; r <= rg[1]; r++ {
			if r >= 0xD800 && r <= 0xF8FF { // surrogates and private use
				continue
			}
			if gi, err := f.GlyphIndex(&buf, r); err != nil || gi == 0 {
				continue
			}
			adv, ok := face.GlyphAdvance(r)
			if !ok {
				continue
			}
			// A combining mark has no advance and sits left of the pen,
			// over the previous character: draw it one cell to the right.
			mark := adv == 0
			mask := image.NewAlpha(image.Rect(0, 0, 32, 16))
			x0 := 0
			if mark {
				x0 = 16
			}
			// Unifont's baseline is 2 pixels above the cell's bottom.
			dr := font.Drawer{Dst: mask, Src: image.Opaque, Face: face, Dot: fixed.P(x0, 14)}
			dr.DrawString(string(r))
			w, left := 8, 0
			switch {
			case !mark && adv.Round() > 8:
				w = 16
			case mark && inkLeftOf(mask, 8):
				w = 16
			case mark:
				left = 8
			}
			rows := make([]byte, 0, 32)
			for y := range 16 {
				var bits uint16
				for x := range w {
					if mask.AlphaAt(left+x, y).A >= 0x80 {
						bits |= 1 << (15 - x)
					}
				}
				rows = append(rows, byte(bits>>8))
				if w == 16 {
					rows = append(rows, byte(bits))
				}
			}
			e := uint32(r)
			if w == 16 {
				e |= 1 << 31
			}
			if mark {
				e |= 1 << 30
			}
			*index = append(*index, e)
			bitmaps.Write(rows)
			n++
		}
	}
	return n, nil
}

// inkLeftOf reports whether mask has ink in a column left of x.
func inkLeftOf(mask *image.Alpha, x int) bool {
	for y := range 16 {
		for cx := range x {
			if mask.AlphaAt(cx, y).A >= 0x80 {
				return true
			}
		}
	}
	return false
}
