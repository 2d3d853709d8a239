package files

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// BenchmarkPutDownload: the file part of android_screenshot: store a
// screenshot-sized file, then fetch it over HTTP as xAgent does.
func BenchmarkPutDownload(b *testing.B) {
	for _, size := range []int{7 << 10, 100 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			e := newEnv(b, Config{})
			srv := newServer(b, e.st)
			data := make([]byte, size)
			ctx := context.Background()
			b.SetBytes(int64(size))
			for b.Loop() {
				ref, err := e.st.PutBytes(ctx, "ch", Meta{MIMEType: "image/png"}, data)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := http.Get(srv.URL + ref.DownloadURL)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if n != int64(size) {
					b.Fatalf("downloaded %d bytes", n)
				}
			}
		})
	}
}
