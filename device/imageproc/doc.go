// Package imageproc turns a device screenshot (PNG from screencap -p) into
// the image android_screenshot returns: scaled so its longest side is at most
// max_side, encoded as PNG or JPEG (android_screenshot). A PNG
// that needs no change is passed through without decoding its pixels.
//
// Screenshots are outside input: the header is checked, and images over
// MaxPixels are refused, before any pixel buffer is allocated.
package imageproc
