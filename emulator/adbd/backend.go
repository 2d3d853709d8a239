package adbd

import (
	"context"
	"io"
	"time"
)

// Identity is what the device announces in its CNXN banner
// ("device::ro.product.name=..;ro.product.model=..;ro.product.device=..;features=...").
type Identity struct {
	Product string // ro.product.name
	Model   string // ro.product.model
	Device  string // ro.product.device
}

// Backend is the Android side of a virtual device: the services the wire
// protocol delivers. emulator/android implements it. Implementations must
// be safe for concurrent use: every ADB stream runs on its own goroutine.
type Backend interface {
	// Identity returns the banner properties.
	Identity() Identity
	// Run runs one shell command line as the device's /system/bin/sh would
	// ("sh -c cmdline"), writing to stdout and stderr, and returns the exit
	// status. An empty cmdline is the shell reading its commands from stdin
	// (adbd starts the shell without -c for a raw stream without a command;
	// pty ones are refused before Run). stdin is never nil (it may be empty).
	// ctx is canceled when the host closes the stream. stdout and stderr
	// have a Flush() error method: output still held to be sent with more
	// (a real adbd reads what the pipe holds when it wakes) goes at once;
	// a shell reading stdin calls it before it waits for more input.
	Run(ctx context.Context, cmdline string, stdin io.Reader, stdout, stderr io.Writer) int
	// Files is the device file system the sync service reads and writes; the
	// shell sees the same files (screencap /sdcard/a.png, then adb pull).
	Files() FileSystem
}

// FileSystem is the device file system as the sync service needs it. Errors
// wrap io/fs sentinels (fs.ErrNotExist, fs.ErrPermission, fs.ErrExist) so the
// sync service can map them to Linux errno values.
type FileSystem interface {
	Stat(path string) (FileInfo, error)
	// ReadDir lists a directory; a missing path or a non-directory is an error.
	ReadDir(path string) ([]FileInfo, error)
	ReadFile(path string) ([]byte, error)
	// WriteFile creates or replaces path (creating parent directories, as
	// adbd does with the fixed_push_mkdir feature) with the given Unix
	// permission bits and modification time.
	WriteFile(path string, data []byte, perm uint32, mtime time.Time) error
}

// FileInfo describes one file. Mode is a raw Unix st_mode: type bits
// (0o040000 directory, 0o100000 regular, 0o120000 symlink) plus permissions.
type FileInfo struct {
	Name    string
	Mode    uint32
	Size    int64
	ModTime time.Time
}
