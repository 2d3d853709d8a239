package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/files"
)

// resultFile is a file a tool result names (the Device Profile's file
// object: file_ref, download_url, mime_type, filename, ...).
type resultFile struct {
	Ref, URL, MimeType, Filename string
}

// fileRefs finds every file object in a decoded result, at any depth
// (android_observe nests its screenshot), in document order.
func fileRefs(v any) []resultFile {
	var out []resultFile
	switch v := v.(type) {
	case map[string]any:
		ref, _ := v["file_ref"].(string)
		url, _ := v["download_url"].(string)
		if ref != "" && url != "" {
			mime, _ := v["mime_type"].(string)
			name, _ := v["filename"].(string)
			out = append(out, resultFile{Ref: ref, URL: url, MimeType: mime, Filename: name})
		}
		// Go maps have no order: walk the keys sorted, so files come out
		// the same way every time.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, fileRefs(v[k])...)
		}
	case []any:
		for _, e := range v {
			out = append(out, fileRefs(e)...)
		}
	}
	return out
}

// downloadFile fetches f from base with the channel header (a ref of
// another channel is refused) and writes it under dir by its filename,
// reduced to a base name. It returns the path written and its size.
func downloadFile(ctx context.Context, base, channel string, f resultFile, dir string) (string, int64, error) {
	if !strings.HasPrefix(f.URL, "/files/refs/") {
		return "", 0, fmt.Errorf("download %s: unexpected download_url %q", f.Ref, f.URL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+f.URL, nil)
	if err != nil {
		return "", 0, err
	}
	req.Header.Set(files.ChannelHeader, channel)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", 0, fmt.Errorf("download %s: %w", f.Ref, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("download %s: %s", f.Ref, resp.Status)
	}
	name := filepath.Base(f.Filename)
	if name == "." || name == "/" || name == ".." || name == "" {
		name = f.Ref
	}
	path := filepath.Join(dir, name)
	out, err := os.Create(path)
	if err != nil {
		return "", 0, err
	}
	n, err := io.Copy(out, resp.Body)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", 0, fmt.Errorf("download %s: %w", f.Ref, err)
	}
	return path, n, nil
}
