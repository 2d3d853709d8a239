package ui

import (
	"hash/fnv"
	"image"
	"math"
)

// Pictures: photographic content for scenario screens (a node's
// "picture"). A flat UI screen is long runs of one colour and gzips to
// about 1.5 % of its raw frame; screens with photos, maps and video
// compress to 5-30 %, so a capture path that compresses on the phone gains
// far less on them. These pictures are generated, not copied from any
// device: fractal value noise (several octaves of smoothly interpolated
// lattice noise) shapes the scene, and a per-pixel grain stands in for a
// photo's sensor noise and texture, which is what defeats deflate's
// matches on real photographs. The same node key always draws the same
// picture.

// pictureKinds are the values a node's "picture" may take.
var pictureKinds = map[string]bool{"photo": true, "map": true}

// badPicture returns the first picture kind under n that is not one of
// pictureKinds, or "".
func badPicture(n *Node) string {
	if n == nil {
		return ""
	}
	if n.Picture != "" && !pictureKinds[n.Picture] {
		return n.Picture
	}
	for _, c := range n.Children {
		if p := badPicture(c); p != "" {
			return p
		}
	}
	return ""
}

// drawPicture paints the picture kind into r, seeded by key.
func DrawPicture(img *image.RGBA, r image.Rectangle, kind, key string) {
	h := fnv.New32a()
	h.Write([]byte(key))
	seed := h.Sum32()
	r = r.Intersect(img.Rect)
	if r.Empty() {
		return
	}
	w, ht := float64(r.Dx()), float64(r.Dy())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		v := float64(y-r.Min.Y) / ht
		off := img.PixOffset(r.Min.X, y)
		for x := r.Min.X; x < r.Max.X; x++ {
			u := float64(x-r.Min.X) / w
			var c [3]float64
			if kind == "map" {
				c = mapPixel(u*w, v*ht, seed)
			} else {
				c = photoPixel(u, v, w, ht, seed)
			}
			g := grain(x, y, seed, kind)
			for i := range c {
				img.Pix[off+i] = clamp8(c[i] + g)
			}
			img.Pix[off+3] = 0xff
			off += 4
		}
	}
}

// photoPixel is a landscape: a sky gradient with soft clouds above a
// fractal horizon, textured ground below that darkens toward the viewer.
func photoPixel(u, v, w, h float64, seed uint32) [3]float64 {
	horizon := 0.42 + 0.18*(fbm(u*4, 0.5, seed+1, 3)-0.5)*2
	if v < horizon {
		t := v / horizon
		cloud := fbm(u*w/90, v*h/45, seed+2, 4)
		cloud = math.Max(0, cloud-0.5) * 2
		sky := [3]float64{40 + 130*t, 95 + 110*t, 170 + 60*t}
		return mix(sky, [3]float64{245, 245, 250}, cloud*0.9)
	}
	t := (v - horizon) / (1 - horizon)
	tex := fbm(u*w/24, v*h/12, seed+3, 4)
	grass := [3]float64{70, 110, 45}
	earth := [3]float64{150, 125, 80}
	c := mix(grass, earth, tex)
	shade := 0.75 + 0.35*t
	for i := range c {
		c[i] *= shade
	}
	return c
}

// mapPixel is a terrain map as map apps draw it: flat land-cover fills
// from fractal noise (water, parks, woods, town) with hill shading over
// the land, crossed by roads on a bent grid, each a pale line with darker
// edges.
func mapPixel(x, y float64, seed uint32) [3]float64 {
	cover := fbm(x/160, y/160, seed+4, 4)
	var c [3]float64
	switch {
	case cover < 0.36:
		return [3]float64{170, 205, 240} // water: flat, no shading
	case cover < 0.5:
		c = [3]float64{200, 230, 190}
	case cover < 0.62:
		c = [3]float64{170, 215, 165}
	default:
		c = [3]float64{242, 239, 233}
	}
	shade := 0.9 + 0.2*fbm(x/90, y/90, seed+5, 2)
	for i := range c {
		c[i] = math.Min(c[i]*shade, 255)
	}
	for _, d := range []float64{
		math.Mod(x+25*fbm(y/200, 0.3, seed+6, 2), 180),
		math.Mod(y+25*fbm(x/200, 0.7, seed+7, 2), 220),
	} {
		switch {
		case d < 6:
			c = [3]float64{255, 255, 255}
		case d < 8:
			c = [3]float64{215, 210, 200}
		}
	}
	return c
}

// grain is the per-pixel noise a photograph carries; a drawn map has
// none.
func grain(x, y int, seed uint32, kind string) float64 {
	if kind == "map" {
		return 0
	}
	const amp = 5.0
	return (float64(hash3(uint32(x), uint32(y), seed)&0xff)/255 - 0.5) * amp
}

// fbm is fractal value noise in [0,1]: octaves of valueNoise, each at
// twice the frequency and half the weight of the one before.
func fbm(x, y float64, seed uint32, octaves int) float64 {
	sum, amp, norm := 0.0, 1.0, 0.0
	for o := range octaves {
		sum += amp * valueNoise(x, y, seed+uint32(o)*977)
		norm += amp
		amp /= 2
		x, y = x*2, y*2
	}
	return sum / norm
}

// valueNoise is lattice noise at (x, y): random values at integer points,
// blended with a smoothstep.
func valueNoise(x, y float64, seed uint32) float64 {
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := x-x0, y-y0
	sx, sy := fx*fx*(3-2*fx), fy*fy*(3-2*fy)
	ix, iy := uint32(int32(x0)), uint32(int32(y0))
	at := func(dx, dy uint32) float64 { return float64(hash3(ix+dx, iy+dy, seed)&0xffff) / 0xffff }
	top := at(0, 0) + (at(1, 0)-at(0, 0))*sx
	bot := at(0, 1) + (at(1, 1)-at(0, 1))*sx
	return top + (bot-top)*sy
}

// hash3 mixes three words into one (a murmur3-style finaliser).
func hash3(a, b, c uint32) uint32 {
	h := a*0x9e3779b1 ^ b*0x85ebca77 ^ c*0xc2b2ae3d
	h ^= h >> 15
	h *= 0x2c1b3c6d
	h ^= h >> 12
	h *= 0x297a2d39
	h ^= h >> 15
	return h
}

func mix(a, b [3]float64, t float64) [3]float64 {
	t = math.Min(math.Max(t, 0), 1)
	return [3]float64{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
}

func clamp8(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v)
}
