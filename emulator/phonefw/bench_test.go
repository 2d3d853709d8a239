package phonefw

import (
	"os"
	"testing"
)

// BenchmarkHelperTree: one TREE round trip of the helper's own code on the
// host JVM (a 207-node real dump served by the fake framework), framing
// and side channel included: what the helper adds besides the phone's
// costs.
func BenchmarkHelperTree(b *testing.B) {
	xml, err := os.ReadFile("../../adb/parse/testdata/uidump/wework_207_nodes.xml")
	if err != nil {
		b.Fatal(err)
	}
	p := &canned{w: 720, h: 1608, dump: xml}
	c := start(b, 29, p)
	c.hello()
	b.ResetTimer()
	for b.Loop() {
		if _, code, _ := c.call(2, uint32(0), uint32(0)); code != "" {
			b.Fatal(code)
		}
	}
	b.StopTimer()
	c.call(11)
	c.wait()
}

// BenchmarkHelperTap: one TAP (down and up injected, each waited for).
func BenchmarkHelperTap(b *testing.B) {
	p := &canned{w: 1080, h: 2400}
	c := start(b, 34, p)
	c.hello()
	b.ResetTimer()
	for b.Loop() {
		if _, code, _ := c.call(3, int32(10), int32(10), uint32(0), uint8(1)); code != "" {
			b.Fatal(code)
		}
	}
	b.StopTimer()
	c.call(11)
	c.wait()
}

// BenchmarkHelperStart: a host JVM start of the translated helper up to
// its HELLO, then QUIT (the virtual phone charges HelperCost.Start on
// top).
func BenchmarkHelperStart(b *testing.B) {
	for b.Loop() {
		c := start(b, 34, &canned{w: 100, h: 100})
		c.hello()
		c.call(11)
		c.wait()
	}
}
