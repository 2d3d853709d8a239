package tools

import (
	"context"
	"fmt"
	"io"

	"github.com/adb-connector/adb-connector/files"
)

// FileResult is the file fields every tool result with a file carries (as
// files.Ref, and the README's tool catalogue): a file_ref, a download_url
// relative to the connector's base URL, the MIME type, a filename, the
// size in bytes, the pixels of an image or video (left out for other
// files) and when the file expires (Unix milliseconds).
type FileResult struct {
	FileRef     string `json:"file_ref"`
	DownloadURL string `json:"download_url"`
	MIMEType    string `json:"mime_type"`
	Filename    string `json:"filename"`
	ByteSize    int64  `json:"byte_size"`
	Width       int    `json:"width,omitempty"`
	Height      int    `json:"height,omitempty"`
	ExpiresAt   int64  `json:"expires_at"`
}

// fileResult is the result fields of a stored file whose pixels are w x h
// (0 for files that are not images or videos).
func fileResult(ref files.Ref, w, h int) FileResult {
	return FileResult{
		FileRef: ref.FileRef, DownloadURL: ref.DownloadURL, MIMEType: ref.MIMEType, Filename: ref.Filename,
		ByteSize: ref.ByteSize, Width: w, Height: h, ExpiresAt: ref.ExpiresAt.UnixMilli(),
	}
}

// fileName names a stored file after what it holds and when it was made:
// "screenshot-20260102-150405.000.png".
func (t *Tools) fileName(what, ext string) string {
	return what + "-" + t.cfg.Now().UTC().Format("20060102-150405.000") + ext
}

// putFile stores the bytes b, or when b is nil what r yields, for the
// call's channel (the only channel that can download it).
func (t *Tools) putFile(ctx context.Context, inv *invocation, meta files.Meta, b []byte, r io.Reader) (files.Ref, error) {
	var ref files.Ref
	var err error
	if b != nil {
		ref, err = t.cfg.Files.PutBytes(ctx, inv.call.Channel.ID, meta, b)
	} else {
		ref, err = t.cfg.Files.Put(ctx, inv.call.Channel.ID, meta, r)
	}
	if err != nil {
		return files.Ref{}, fmt.Errorf("store %s: %w", meta.MIMEType, err)
	}
	return ref, nil
}
