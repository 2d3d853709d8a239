package imageproc

import (
	"image"
	"runtime"
	"sync"
)

// Area-average ("box") downscaling: each output pixel is the mean of the
// source area it covers, partly covered source pixels weighted by the part
// covered. For shrinking a screen by 1.5-4x this keeps thin text strokes
// as grey rather than dropping or aliasing them (what nearest or a
// fixed-footprint bilinear does), and unlike Lanczos or Catmull-Rom it adds
// no ringing halo around glyphs; it is also the cheapest of them, since
// each source pixel is read once per axis. It is OpenCV's INTER_AREA for
// non-integer ratios (OpenCV imgproc resize.cpp, "resizeArea").
//
// The two passes are separable and in fixed point: weights sum to
// 1<<weightBits per output pixel, the horizontal pass keeps 8 fractional
// bits, so nothing overflows a uint32 for any ratio.

const (
	weightBits = 14
	// hFrac is the horizontal pass's extra fractional bits (8.8 fixed).
	hFrac = 8
	// vShift turns a vertical sum (8.8 value times 1<<weightBits) back
	// into 8 bits.
	vShift = hFrac + weightBits
)

// axisTaps are the weights of one axis: output i reads source pixels
// start[i] .. start[i]+n[i]-1 with weights w[i*stride:].
type axisTaps struct {
	start  []int
	n      []int
	w      []uint32
	stride int
}

// boxTaps computes the area weights that shrink sn pixels to dn (dn <= sn).
// In units of 1/dn source pixel, output j covers [j*sn, (j+1)*sn) and
// source i covers [i*dn, (i+1)*dn): the overlap, scaled so each output's
// weights sum exactly to 1<<weightBits (the rounding remainder goes to the
// largest weight).
func boxTaps(sn, dn int) axisTaps {
	stride := (sn+dn-1)/dn + 1
	t := axisTaps{start: make([]int, dn), n: make([]int, dn), w: make([]uint32, dn*stride), stride: stride}
	for j := range dn {
		lo, hi := j*sn, (j+1)*sn
		i0, i1 := lo/dn, (hi-1)/dn
		t.start[j], t.n[j] = i0, i1-i0+1
		w := t.w[j*stride : j*stride+t.n[j]]
		var sum uint32
		big := 0
		for k := range w {
			i := i0 + k
			ov := min((i+1)*dn, hi) - max(i*dn, lo)
			w[k] = uint32((int64(ov)<<weightBits + int64(sn)/2) / int64(sn))
			sum += w[k]
			if w[k] > w[big] {
				big = k
			}
		}
		w[big] += 1<<weightBits - sum // exact sum; |remainder| <= len(w)/2
	}
	return t
}

// boxResize returns src shrunk to dw x dh (each no larger than src's) by
// area averaging. src's pixels are used as they are (premultiplied RGBA,
// as image.RGBA holds them). Large images are split by rows over up to two
// goroutines: the output rows are independent.
func boxResize(src *image.RGBA, dw, dh int) *image.RGBA {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	ht, vt := boxTaps(sw, dw), boxTaps(sh, dh)
	workers := min(runtime.GOMAXPROCS(0), 2)
	if workers < 2 || sw*sh < 1<<20 {
		boxRows(src, dst, ht, vt, 0, dh)
		return dst
	}
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() { boxRows(src, dst, ht, vt, dh*k/workers, dh*(k+1)/workers) })
	}
	wg.Wait()
	return dst
}

// boxRows writes output rows y0..y1-1. Each is first summed vertically
// over the source rows it covers, at full width (a tight loop over bytes,
// where most of the work is), then shrunk horizontally.
func boxRows(src, dst *image.RGBA, ht, vt axisTaps, y0, y1 int) {
	sw, dw := src.Rect.Dx(), dst.Rect.Dx()
	col := make([]uint32, 4*sw) // one vertically summed row, 8.8 fixed point
	rows := make([][]uint8, vt.stride)
	for y := y0; y < y1; y++ {
		s, n := vt.start[y], vt.n[y]
		for k := range n {
			off := src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+s+k)
			rows[k] = src.Pix[off : off+4*sw]
		}
		sumRows(col, rows[:n], vt.w[y*vt.stride:y*vt.stride+n])
		boxRow(col, dst.Pix[y*dst.Stride:y*dst.Stride+4*dw], ht)
	}
}

// sumRows sets col to the weighted sum of rows, in 8.8 fixed point. The
// usual tap counts have their own loops: one pass, no read-modify-write.
func sumRows(col []uint32, rows [][]uint8, w []uint32) {
	const sh, half = weightBits - hFrac, 1 << (weightBits - hFrac - 1)
	switch len(rows) {
	case 1:
		r0 := rows[0][:len(col)]
		for i := range col {
			col[i] = uint32(r0[i]) << hFrac
		}
	case 2:
		r0, r1 := rows[0][:len(col)], rows[1][:len(col)]
		w0, w1 := w[0], w[1]
		for i := range col {
			col[i] = (uint32(r0[i])*w0 + uint32(r1[i])*w1 + half) >> sh
		}
	case 3:
		r0, r1, r2 := rows[0][:len(col)], rows[1][:len(col)], rows[2][:len(col)]
		w0, w1, w2 := w[0], w[1], w[2]
		for i := range col {
			col[i] = (uint32(r0[i])*w0 + uint32(r1[i])*w1 + uint32(r2[i])*w2 + half) >> sh
		}
	case 4:
		r0, r1, r2, r3 := rows[0][:len(col)], rows[1][:len(col)], rows[2][:len(col)], rows[3][:len(col)]
		w0, w1, w2, w3 := w[0], w[1], w[2], w[3]
		for i := range col {
			col[i] = (uint32(r0[i])*w0 + uint32(r1[i])*w1 + uint32(r2[i])*w2 + uint32(r3[i])*w3 + half) >> sh
		}
	default:
		clear(col)
		for k, r := range rows {
			r, wk := r[:len(col)], w[k]
			for i := range col {
				col[i] += uint32(r[i]) * wk
			}
		}
		for i := range col {
			col[i] = (col[i] + half) >> sh
		}
	}
}

// boxRow shrinks one vertically summed row (8.8 fixed point) horizontally
// into out, 8-bit RGBA.
func boxRow(col []uint32, out []uint8, ht axisTaps) {
	const half = 1 << (vShift - 1)
	for x := range len(out) / 4 {
		var r, g, b, a uint32
		p := col[4*ht.start[x]:]
		for k, w := range ht.w[x*ht.stride : x*ht.stride+ht.n[x]] {
			q := p[4*k : 4*k+4 : 4*k+4]
			r += q[0] * w
			g += q[1] * w
			b += q[2] * w
			a += q[3] * w
		}
		o := out[4*x : 4*x+4 : 4*x+4]
		o[0], o[1], o[2], o[3] = clip8((r+half)>>vShift), clip8((g+half)>>vShift), clip8((b+half)>>vShift), clip8((a+half)>>vShift)
	}
}

// clip8 guards against the rounding of the weights: a sum of 255s can
// come out a hair above 255.
func clip8(v uint32) uint8 { return uint8(min(v, 255)) }
