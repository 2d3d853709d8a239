package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockFileName is the file in the data directory a running serve holds an
// exclusive flock(2) on, with its pid in it.
const lockFileName = "serve.lock"

// lockDataDir takes the data directory for this serve before anything else
// reads or writes it: a second serve on the same directory would otherwise
// open the database, restore state, empty files/tmp (the first server's
// uploads in progress) and sweep before failing on the admin socket. The
// lock is flock(2), held by the open file: the kernel drops it when the
// process ends, even on kill -9, so a stale file never blocks a restart.
// release closes it (the file stays, holding the last pid).
func lockDataDir(dir string) (release func(), err error) {
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data dir lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b, _ := io.ReadAll(io.LimitReader(f, 32))
			pid := strings.TrimSpace(string(b))
			if _, perr := strconv.Atoi(pid); perr != nil {
				pid = "unknown"
			}
			return nil, fmt.Errorf("data dir %s is in use by another adb-connector serve (pid %s)", dir, pid)
		}
		return nil, fmt.Errorf("data dir lock %s: %w", path, err)
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("data dir lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
