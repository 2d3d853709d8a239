package parse

import (
	"strconv"
	"strings"
)

// Dim is a width and height in pixels.
type Dim struct {
	W int `json:"w"`
	H int `json:"h"`
}

// Size is the output of `wm size`. Override is nil when no override is set.
type Size struct {
	Physical *Dim `json:"physical"`
	Override *Dim `json:"override,omitempty"`
}

// Effective is the size apps render at: the override when set, else the
// physical size. It is in the display's natural (rotation 0) orientation.
func (s Size) Effective() Dim {
	if s.Override != nil {
		return *s.Override
	}
	if s.Physical != nil {
		return *s.Physical
	}
	return Dim{}
}

// Rotated returns the effective size as seen at rotation r (0-3): width and
// height swap at 90 and 270 degrees.
func (s Size) Rotated(r int) Dim {
	d := s.Effective()
	if r%2 == 1 {
		d.W, d.H = d.H, d.W
	}
	return d
}

// WMSize parses `wm size`:
//
//	Physical size: 1080x2340
//	Override size: 720x1560
func WMSize(out string) (Size, error) {
	var s Size
	for _, line := range splitLines(out) {
		line = strings.TrimSpace(line)
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var dst **Dim
		switch key {
		case "Physical size":
			dst = &s.Physical
		case "Override size":
			dst = &s.Override
		default:
			continue
		}
		d, err := parseDim(strings.TrimSpace(val))
		if err != nil {
			return Size{}, formatErr("wm size", err.Error())
		}
		*dst = &d
	}
	if s.Physical == nil {
		return Size{}, formatErr("wm size", "no Physical size in "+clip(out))
	}
	return s, nil
}

func parseDim(s string) (Dim, error) {
	ws, hs, ok := strings.Cut(s, "x")
	if !ok {
		return Dim{}, formatErr("size", "want WxH, got "+clip(s))
	}
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if err1 != nil || err2 != nil || w <= 0 || h <= 0 || w > 1<<16 || h > 1<<16 {
		return Dim{}, formatErr("size", "bad WxH "+clip(s))
	}
	return Dim{W: w, H: h}, nil
}

// Density is the output of `wm density`; Override is 0 when not set.
type Density struct {
	Physical int `json:"physical"`
	Override int `json:"override,omitempty"`
}

// Effective is the override density when set, else the physical one.
func (d Density) Effective() int {
	if d.Override != 0 {
		return d.Override
	}
	return d.Physical
}

// WMDensity parses `wm density`:
//
//	Physical density: 440
//	Override density: 380
func WMDensity(out string) (Density, error) {
	var d Density
	for _, line := range splitLines(out) {
		key, val, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		var dst *int
		switch key {
		case "Physical density":
			dst = &d.Physical
		case "Override density":
			dst = &d.Override
		default:
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || n <= 0 || n > 10000 {
			return Density{}, formatErr("wm density", "bad density "+clip(val))
		}
		*dst = n
	}
	if d.Physical == 0 {
		return Density{}, formatErr("wm density", "no Physical density in "+clip(out))
	}
	return d, nil
}
