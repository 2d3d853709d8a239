package parse

import (
	"regexp"
	"strconv"
)

var (
	// Android 8-12: "    SurfaceOrientation: 1" in the touch input mapper.
	surfaceOrientationRe = regexp.MustCompile(`SurfaceOrientation: (\d)\b`)
	// Android 13+: "Viewport INTERNAL: displayId=0, uniqueId=local:..., port=...,
	// orientation=1, logicalFrame=[0, 0, 2400, 1080], ...".
	viewportOrientationRe = regexp.MustCompile(`Viewport INTERNAL:[^\n]*?\borientation=(\d)\b`)
	// `dumpsys display` (Android 10+): "DisplayViewport{type=INTERNAL, valid=true,
	// ..., orientation=1, logicalFrame=Rect(0, 0 - 2340, 1080), ...}".
	displayViewportRe = regexp.MustCompile(`DisplayViewport\{type=INTERNAL[^\n}]*?\borientation=(\d)\b`)
)

// InputRotation reads the display rotation (0-3) of the built-in screen from
// `dumpsys input`: SurfaceOrientation (Android 8-12) or the orientation of
// the INTERNAL viewport (Android 13+). It also reads the INTERNAL
// DisplayViewport of `dumpsys display`. It is a second opinion for Window's
// Rotation when that is not known.
func InputRotation(out string) (int, error) {
	for _, re := range []*regexp.Regexp{surfaceOrientationRe, viewportOrientationRe, displayViewportRe} {
		if m := re.FindStringSubmatch(out); m != nil {
			r, err := strconv.Atoi(m[1])
			if err == nil && r >= 0 && r <= 3 {
				return r, nil
			}
			return 0, formatErr("dumpsys input", "bad orientation "+clip(m[1]))
		}
	}
	return 0, formatErr("dumpsys input", "no SurfaceOrientation or INTERNAL viewport")
}
