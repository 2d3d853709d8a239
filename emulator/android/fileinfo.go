package android

import (
	"io/fs"
	"time"

	"github.com/adb-connector/adb-connector/emulator/adbd"
)

// fileInfo adapts adbd.FileInfo to io/fs.FileInfo for the interpreter.
type fileInfo struct{ fi adbd.FileInfo }

func (f fileInfo) Name() string       { return f.fi.Name }
func (f fileInfo) Size() int64        { return f.fi.Size }
func (f fileInfo) ModTime() time.Time { return f.fi.ModTime }
func (f fileInfo) IsDir() bool        { return f.fi.Mode&0o170000 == modeDir }
func (f fileInfo) Sys() any           { return nil }
func (f fileInfo) Mode() fs.FileMode {
	m := fs.FileMode(f.fi.Mode & 0o777)
	if f.IsDir() {
		m |= fs.ModeDir
	}
	return m
}
