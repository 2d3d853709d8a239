package imageproc

import (
	"image"
	"image/color"
	"testing"
)

func TestBoxTapsSumToOne(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]int{{2400, 1024}, {1080, 461}, {1080, 1080}, {7, 3}, {3, 2}, {1, 1}, {30000, 1}, {32768, 32767}} {
		sn, dn := c[0], c[1]
		tp := boxTaps(sn, dn)
		next := 0
		for j := range dn {
			var sum uint32
			for _, w := range tp.w[j*tp.stride : j*tp.stride+tp.n[j]] {
				sum += w
			}
			if sum != 1<<weightBits {
				t.Fatalf("%d->%d: output %d weights sum to %d", sn, dn, j, sum)
			}
			// Outputs cover the source in order, without gaps.
			if s := tp.start[j]; s != next && s != next-1 {
				t.Fatalf("%d->%d: output %d starts at %d, previous ended before %d", sn, dn, j, s, next)
			}
			next = tp.start[j] + tp.n[j]
		}
		if next != sn {
			t.Fatalf("%d->%d: last output ends at %d", sn, dn, next)
		}
	}
}

func TestBoxResizeAverages(t *testing.T) {
	t.Parallel()
	t.Run("uniform stays exact", func(t *testing.T) {
		src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
		c := color.RGBA{0x12, 0x80, 0xfe, 0xff}
		for i := 0; i < len(src.Pix); i += 4 {
			src.Pix[i], src.Pix[i+1], src.Pix[i+2], src.Pix[i+3] = c.R, c.G, c.B, c.A
		}
		dst := boxResize(src, 461, 1024)
		for i := 0; i < len(dst.Pix); i += 4 {
			if got := (color.RGBA{dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3]}); got != c {
				t.Fatalf("pixel %d = %v, want %v", i/4, got, c)
			}
		}
	})
	t.Run("2x is the mean of 2x2 blocks", func(t *testing.T) {
		src := image.NewRGBA(image.Rect(0, 0, 8, 6))
		for i := range src.Pix {
			src.Pix[i] = uint8(i * 37)
		}
		dst := boxResize(src, 4, 3)
		for y := range 3 {
			for x := range 4 {
				for ch := range 4 {
					sum := 0
					for _, p := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
						sum += int(src.Pix[src.PixOffset(2*x+p[0], 2*y+p[1])+ch])
					}
					want := (sum + 2) / 4
					if got := int(dst.Pix[dst.PixOffset(x, y)+ch]); got != want && got != want-1 {
						t.Fatalf("(%d,%d) channel %d = %d, want %d", x, y, ch, got, want)
					}
				}
			}
		}
	})
	t.Run("thin text stays as grey", func(t *testing.T) {
		// 1-px black strokes every 3 px on white, shrunk 3x: every output
		// pixel covers one stroke, so all are the same grey (2/3 white);
		// nearest would give pure white or black.
		src := image.NewRGBA(image.Rect(0, 0, 300, 30))
		for y := range 30 {
			for x := range 300 {
				v := uint8(255)
				if x%3 == 1 {
					v = 0
				}
				src.SetRGBA(x, y, color.RGBA{v, v, v, 255})
			}
		}
		dst := boxResize(src, 100, 10)
		for x := range 100 {
			if g := dst.RGBAAt(x, 5).R; g < 169 || g > 171 {
				t.Fatalf("x=%d grey %d, want 170", x, g)
			}
		}
	})
	t.Run("sub-image and non-integer ratio keep the mean", func(t *testing.T) {
		big := phoneFrame(400, 900)
		src := big.SubImage(image.Rect(13, 21, 13+333, 21+777)).(*image.RGBA)
		dst := boxResize(src, 142, 331)
		mean := func(m *image.RGBA) float64 {
			var s, n float64
			b := m.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					s += float64(m.RGBAAt(x, y).G)
					n++
				}
			}
			return s / n
		}
		if a, b := mean(src), mean(dst); a-b > 0.5 || b-a > 0.5 {
			t.Fatalf("mean green %.2f -> %.2f", a, b)
		}
	})
}
