package imageproc

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

// TestEncodeMarkedSurvivesJPEG: on a white screen shrunk to 1024 and
// saved as JPEG quality 50, a tag keeps its dark saturated fill and its
// white glyphs, the outline its colour; two marks on the same box get
// tags that do not overlap; the source is not modified.
func TestEncodeMarkedSurvivesJPEG(t *testing.T) {
	t.Parallel()
	src := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	box := image.Rect(100, 400, 900, 600)
	marks := []Mark{{Box: box, Label: "e12"}, {Box: box, Label: "e3"}}
	out, w, h, scale, err := EncodeMarked(src, marks, 1024, FormatJPEG, 50)
	if err != nil {
		t.Fatal(err)
	}
	if w != 461 || h != 1024 || scale < 2.3 || scale > 2.4 {
		t.Fatalf("%dx%d scale %v", w, h, scale)
	}
	for _, p := range src.Pix {
		if p != 255 {
			t.Fatal("the source was drawn on")
		}
	}
	img, err := jpeg.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	// The tags, as drawMarks places them, in the output image.
	sx, sy := float64(w)/1080, float64(h)/2400
	b := image.Rect(int(float64(box.Min.X)*sx), int(float64(box.Min.Y)*sy), int(float64(box.Max.X)*sx+0.5), int(float64(box.Max.Y)*sy+0.5))
	g := 2
	first := placeTag(b, 3*6*g-g+2*g, 7*g+2*g, img.Bounds(), nil)
	second := placeTag(b, 2*6*g-g+2*g, 7*g+2*g, img.Bounds(), []image.Rectangle{first})
	if first.Overlaps(second) {
		t.Errorf("tags %v and %v overlap", first, second)
	}
	red, white := 0, 0
	for y := first.Min.Y; y < first.Max.Y; y++ {
		for x := first.Min.X; x < first.Max.X; x++ {
			r, gg, bb, _ := img.At(x, y).RGBA()
			switch {
			case r>>8 > 150 && gg>>8 < 70 && bb>>8 < 70:
				red++
			case r>>8 > 200 && gg>>8 > 200 && bb>>8 > 200:
				white++
			}
		}
	}
	if area := first.Dx() * first.Dy(); red < area/3 || white < area/10 {
		t.Errorf("tag after JPEG: %d red, %d white of %d pixels", red, white, area)
	}
	// The outline's middle of the left edge, off the tags: the second
	// mark's blue, drawn over the first's red.
	c := color.RGBAModel.Convert(img.At(b.Min.X+1, (b.Min.Y+b.Max.Y)/2)).(color.RGBA)
	if c.B < 160 || c.R > 80 || c.G > 120 {
		t.Errorf("outline after JPEG = %v, want blue", c)
	}
}
