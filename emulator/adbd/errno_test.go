package adbd

import (
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// TestErrno checks FileSystem errors map to the Linux errno the sync
// service sends: io/fs sentinels, and errno values (the android FS returns
// EISDIR and ENOTDIR) as they are.
func TestErrno(t *testing.T) {
	for _, tc := range []struct {
		err      error
		want     uint32
		wantText string
	}{
		{nil, 0, "I/O error"},
		{&fs.PathError{Op: "stat", Path: "/x", Err: fs.ErrNotExist}, errnoENOENT, "No such file or directory"},
		{fmt.Errorf("w: %w", fs.ErrPermission), errnoEACCES, "Permission denied"},
		{fs.ErrExist, errnoEEXIST, "File exists"},
		{syscall.ENOENT, errnoENOENT, "No such file or directory"},
		{&fs.PathError{Op: "read", Path: "/sdcard", Err: syscall.EISDIR}, errnoEISDIR, "Is a directory"},
		{&fs.PathError{Op: "readdir", Path: "/f", Err: syscall.ENOTDIR}, errnoENOTDIR, "Not a directory"},
		{syscall.ENOSPC, errnoEIO, "I/O error"},
		{fmt.Errorf("other"), errnoEIO, "I/O error"},
	} {
		t.Run(fmt.Sprint(tc.err), func(t *testing.T) {
			got := errno(tc.err)
			if got != tc.want || errnoText(got) != tc.wantText {
				t.Errorf("errno = %d %q, want %d %q", got, errnoText(got), tc.want, tc.wantText)
			}
		})
	}
}
