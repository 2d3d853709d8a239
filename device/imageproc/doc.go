// Package imageproc turns a device screenshot into the image
// android_screenshot returns: scaled so its longest side is at most
// max_side, encoded as PNG or JPEG. The screen comes either as the phone's
// PNG (screencap -p: Resize, or Decode then Encode) or as pixels already in
// memory (a raw screencap: Encode). A PNG that needs no change is passed
// through without decoding its pixels.
//
// Shrinking is area averaging (box.go), chosen for legible text at the
// lowest cost: BenchmarkEncode1080x2400JPEG1024 compares it with the
// resamplers of disintegration/imaging and golang.org/x/image/draw.
//
// Screenshots are outside input: the header is checked, and images over
// MaxPixels are refused, before any pixel buffer is allocated.
package imageproc
