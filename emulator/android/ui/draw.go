package ui

import (
	"image"
	"image/color"
	"image/draw"
	"strings"
)

// The renderer: the look of a screen drawn from its element tree.

var (
	White    = color.RGBA{0xff, 0xff, 0xff, 0xff}
	Black    = color.RGBA{0, 0, 0, 0xff}
	gray     = color.RGBA{0x9e, 0x9e, 0x9e, 0xff}
	light    = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}
	Accent   = color.RGBA{0x1a, 0x73, 0xe8, 0xff}
	switchOn = color.RGBA{0x34, 0xa8, 0x53, 0xff}
)

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

// DrawNode paints one element and its children: coloured boxes, buttons,
// text fields with an underline, switches, launcher icons, and text in
// the 16-pixel bitmap font (font.go) scaled by density/160.
func DrawNode(img *image.RGBA, n *Element, s int) {
	b := n.B
	bg := White
	icon := strings.Contains(n.Key, "/icon/")
	isButton := strings.Contains(n.Class, "Button") && !n.Checkable
	switch {
	case icon:
		side := min(b.Dx(), b.Dy()) * 3 / 5
		sq := image.Rect(b.Min.X+(b.Dx()-side)/2, b.Min.Y+side/6, b.Min.X+(b.Dx()+side)/2, b.Min.Y+side/6+side)
		fill(img, sq, n.Color)
	case n.Picture != "":
		DrawPicture(img, b, n.Picture, n.Key)
		bg = Black // text over a picture is drawn White
	case n.HasColor:
		fill(img, b, n.Color)
		bg = n.Color
	case isButton:
		fill(img, b, Accent)
		bg = Accent
	case n.Clickable && n.Text != "" && !n.Field:
		outline(img, b, 1, light)
	}
	if n.Field {
		c := gray
		if n.Focused {
			c = Accent
		}
		fill(img, image.Rect(b.Min.X, b.Max.Y-2*s, b.Max.X, b.Max.Y), c)
	}
	if n.Checkable {
		w, h := 26*s, 14*s
		sw := image.Rect(b.Max.X-w-8*s, b.Min.Y+(b.Dy()-h)/2, b.Max.X-8*s, b.Min.Y+(b.Dy()+h)/2)
		if n.Checked {
			fill(img, sw, switchOn)
			fill(img, image.Rect(sw.Max.X-h, sw.Min.Y, sw.Max.X, sw.Max.Y), White)
			outline(img, image.Rect(sw.Max.X-h, sw.Min.Y, sw.Max.X, sw.Max.Y), 1, switchOn)
		} else {
			fill(img, sw, gray)
			fill(img, image.Rect(sw.Min.X, sw.Min.Y, sw.Min.X+h, sw.Max.Y), White)
			outline(img, image.Rect(sw.Min.X, sw.Min.Y, sw.Min.X+h, sw.Max.Y), 1, gray)
		}
	}
	text, tc := n.Text, Black
	if n.Password {
		text = strings.Repeat("*", len([]rune(text)))
	}
	if text == "" && n.Field {
		text, tc = n.Hint, gray
	}
	if dark(bg) {
		tc = White
	}
	if text != "" {
		tw := TextWidth(text) * s
		th := GlyphH * s
		x := b.Min.X + 8*s
		y := b.Min.Y + (b.Dy()-th)/2
		if isButton || icon {
			x = b.Min.X + max((b.Dx()-tw)/2, 0)
		}
		if icon {
			y = b.Max.Y - th - 4*s
		}
		DrawText(img, x, y, s, tc, text, b)
	}
	for _, c := range n.Children {
		DrawNode(img, c, s)
	}
}
