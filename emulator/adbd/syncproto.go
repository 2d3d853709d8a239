package adbd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"
	"time"
)

// Sync protocol ids (AOSP SYNC.TXT and file_sync_protocol.h), four ASCII
// bytes read as a little-endian uint32.
const (
	syncSTAT = 0x54415453 // "STAT"
	syncSTA2 = 0x32415453 // "STA2"
	syncLST2 = 0x3254534c // "LST2"
	syncLIST = 0x5453494c // "LIST"
	syncLIS2 = 0x3253494c // "LIS2"
	syncDENT = 0x544e4544 // "DENT"
	syncDNT2 = 0x32544e44 // "DNT2"
	syncSEND = 0x444e4553 // "SEND"
	syncRECV = 0x56434552 // "RECV"
	syncDATA = 0x41544144 // "DATA"
	syncDONE = 0x454e4f44 // "DONE"
	syncOKAY = 0x59414b4f // "OKAY"
	syncFAIL = 0x4c494146 // "FAIL"
	syncQUIT = 0x54495551 // "QUIT"
)

const (
	// syncMaxPath is adbd's limit on a request path.
	syncMaxPath = 1024
	// syncMaxChunk is the largest DATA chunk (SYNC_DATA_MAX).
	syncMaxChunk = 64 << 10
	// syncStatV2Size and syncDentV2Size are the packed sizes of the v2
	// stat reply and directory entry (without the name).
	syncStatV2Size = 72
	syncDentV2Size = 76
	syncDentV1Size = 20
)

// Linux errno values the sync v2 replies carry.
const (
	errnoENOENT  = 2
	errnoEIO     = 5
	errnoEACCES  = 13
	errnoEEXIST  = 17
	errnoENOTDIR = 20
	errnoEISDIR  = 21
)

// syncRequest is one request from the host: an id and, for the requests
// that take one, a path (for SEND "path,mode").
type syncRequest struct {
	id   uint32
	path string
}

// readSyncHeader reads an 8-byte sync header: id and length/argument.
func readSyncHeader(r io.Reader) (id, arg uint32, err error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, 0, err
	}
	return binary.LittleEndian.Uint32(h[0:]), binary.LittleEndian.Uint32(h[4:]), nil
}

// readSyncRequest decodes one request. Paths longer than syncMaxPath are a
// protocol error (adbd fails the same way). QUIT carries no path.
func readSyncRequest(r io.Reader) (syncRequest, error) {
	id, n, err := readSyncHeader(r)
	if err != nil {
		return syncRequest{}, err
	}
	switch id {
	case syncSTAT, syncSTA2, syncLST2, syncLIST, syncLIS2, syncSEND, syncRECV:
	case syncQUIT:
		return syncRequest{id: id}, nil
	default:
		return syncRequest{}, fmt.Errorf("%w: unknown sync request %s", ErrProtocol, commandName(id))
	}
	if n > syncMaxPath {
		return syncRequest{}, fmt.Errorf("%w: sync path too long (%d)", ErrProtocol, n)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return syncRequest{}, io.ErrUnexpectedEOF
	}
	return syncRequest{id: id, path: string(p)}, nil
}

// errno maps a FileSystem error to a Linux errno: the io/fs sentinels,
// and ENOTDIR and EISDIR carried as syscall.Errno; anything else is EIO.
func errno(err error) uint32 {
	var en syscall.Errno
	switch {
	case err == nil:
		return 0
	case errors.Is(err, fs.ErrNotExist):
		return errnoENOENT
	case errors.Is(err, fs.ErrPermission):
		return errnoEACCES
	case errors.Is(err, fs.ErrExist):
		return errnoEEXIST
	case errors.As(err, &en) && (en == errnoENOTDIR || en == errnoEISDIR):
		return uint32(en)
	}
	return errnoEIO
}

// errnoText is strerror for the errno values above.
func errnoText(e uint32) string {
	switch e {
	case errnoENOENT:
		return "No such file or directory"
	case errnoEACCES:
		return "Permission denied"
	case errnoEEXIST:
		return "File exists"
	case errnoENOTDIR:
		return "Not a directory"
	case errnoEISDIR:
		return "Is a directory"
	}
	return "I/O error"
}

func putU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func putU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// unixTime returns t as Unix seconds, 0 for the zero time.
func unixTime(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// appendStatV1 appends a STAT reply (mode, size, mtime); all zero when
// missing.
func appendStatV1(b []byte, fi FileInfo, err error) []byte {
	b = putU32(b, syncSTAT)
	if err != nil {
		return append(b, make([]byte, 12)...)
	}
	b = putU32(b, fi.Mode)
	b = putU32(b, uint32(fi.Size))
	return putU32(b, uint32(unixTime(fi.ModTime)))
}

// appendStatV2Body appends the stat fields after id (and error) of a
// STA2/LST2 reply or DNT2 entry.
func appendStatV2Body(b []byte, fi FileInfo, ino uint64) []byte {
	t := uint64(unixTime(fi.ModTime))
	b = putU64(b, 0x0100) // dev
	b = putU64(b, ino)
	b = putU32(b, fi.Mode)
	nlink := uint32(1)
	if fi.Mode&0o170000 == 0o040000 {
		nlink = 2
	}
	b = putU32(b, nlink)
	b = putU32(b, 2000) // uid shell
	b = putU32(b, 1015) // gid sdcard_rw
	b = putU64(b, uint64(fi.Size))
	b = putU64(b, t)    // atime
	b = putU64(b, t)    // mtime
	return putU64(b, t) // ctime
}

// appendStatV2 appends a 72-byte STA2/LST2 reply; errno set and the rest
// zero on error.
func appendStatV2(b []byte, id uint32, fi FileInfo, err error, ino uint64) []byte {
	b = putU32(b, id)
	if err != nil {
		b = putU32(b, errno(err))
		return append(b, make([]byte, syncStatV2Size-8)...)
	}
	b = putU32(b, 0)
	return appendStatV2Body(b, fi, ino)
}

// appendFail appends a FAIL message.
func appendFail(b []byte, msg string) []byte {
	b = putU32(b, syncFAIL)
	b = putU32(b, uint32(len(msg)))
	return append(b, msg...)
}
