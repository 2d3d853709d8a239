package vfs

import (
	"io/fs"
	"time"

	"github.com/adb-connector/adb-connector/emulator/adbd"
)

// FileInfo adapts adbd.FileInfo to io/fs.FileInfo for the interpreter.
type FileInfo struct{ Info adbd.FileInfo }

func (f FileInfo) Name() string       { return f.Info.Name }
func (f FileInfo) Size() int64        { return f.Info.Size }
func (f FileInfo) ModTime() time.Time { return f.Info.ModTime }
func (f FileInfo) IsDir() bool        { return f.Info.Mode&0o170000 == ModeDir }
func (f FileInfo) Sys() any           { return nil }
func (f FileInfo) Mode() fs.FileMode {
	m := fs.FileMode(f.Info.Mode & 0o777)
	if f.IsDir() {
		m |= fs.ModeDir
	}
	return m
}
