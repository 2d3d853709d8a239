package parse

import (
	"os"
	"testing"
)

// Benchmarks on the largest goldens: what one parse costs per command.

func benchFile(b *testing.B, path string, parse func([]byte)) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		parse(data)
	}
}

func BenchmarkUIDump(b *testing.B) {
	benchFile(b, "testdata/uidump/api26_settings.xml", func(d []byte) { _, _ = UIDump(d) })
}

func BenchmarkWindow(b *testing.B) {
	benchFile(b, "testdata/window/api30_portrait.txt", func(d []byte) { _, _ = Window(string(d)) })
}

func BenchmarkProps(b *testing.B) {
	benchFile(b, "testdata/props/api26_pixel.txt", func(d []byte) { _, _ = Props(string(d)) })
}

func BenchmarkLogcat(b *testing.B) {
	benchFile(b, "testdata/logcat/threadtime_api26.txt", func(d []byte) { _, _ = Logcat(string(d)) })
}
