package adb

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

func TestCompletePNG(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 40, 30))); err != nil {
		t.Fatal(err)
	}
	full := buf.Bytes()
	if !completePNG(full) {
		t.Fatal("a whole PNG was not recognized")
	}
	// Every proper prefix is what a device that dropped mid-stream leaves:
	// none may pass, or a cut screenshot would skip the online check.
	for n := 0; n < len(full); n++ {
		if completePNG(full[:n]) {
			t.Fatalf("a PNG cut at %d of %d bytes passed as complete", n, len(full))
		}
	}
	if completePNG(append([]byte("junk"), full...)) {
		t.Fatal("output not starting with the PNG signature passed as complete")
	}
}
