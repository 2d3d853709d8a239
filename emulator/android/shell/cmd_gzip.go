package shell

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"strings"
)

// Gzip is toybox gzip, gunzip and zcat (AOSP external/toybox
// toys/lsb/gzip.c, built with zlib on Android: do_deflate hands the
// stream to gzdopen/gzwrite). Options -c -d -f -k -n and -1..-9 (the last
// level given wins; default 6). With no FILE, or "-", stdin goes to
// stdout; a FILE becomes FILE.gz (or loses its .gz with -d), removed
// unless -k, the output refused if it exists unless -f; -c writes it to
// stdout instead. gunzip is gzip -d, zcat gzip -dc. Input to decompress
// that is not gzip is copied as it is (zlib's gzread is transparent).
// Compressing costs the timing profile's deflate time per MB read
// (Profile.DeflateCost), charged as the input is read, so a pipeline's
// deflate overlaps the transfer of what is already compressed, as on a
// phone. Messages and statuses as toybox's error_msg/perror_msg: "gzip:
// MESSAGE", status 1.
func Gzip(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "ncdfk123456789", Max: -1})
	if !ok {
		return st
	}
	level := gzipLevel(c.Args[1:])
	switch c.ToyName() {
	case "gunzip":
		a.Flags['d'] = true
	case "zcat":
		a.Flags['d'], a.Flags['c'] = true, true
	}
	files := a.Operands
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	for _, f := range files {
		if f == "-" {
			if !c.gzipStream(c.Stdin, c.Stdout, a.Has('d'), level) {
				status = 1
			}
			continue
		}
		if !c.gzipFile(f, a, level) {
			status = 1
		}
	}
	return status
}

// gzipLevel is the compression level of args: the last of -1..-9 given
// ("[-123456789]": each clears the others), else 6.
func gzipLevel(args []string) int {
	level := 6
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if len(arg) < 2 || arg[0] != '-' || arg[1] == '-' {
			continue
		}
		for _, r := range arg[1:] {
			if r >= '1' && r <= '9' {
				level = int(r - '0')
			}
		}
	}
	return level
}

// gzipFile compresses or decompresses one FILE operand as do_gzip does.
func (c *Ctx) gzipFile(name string, a ToyArgs, level int) bool {
	p := c.Abs(name)
	data, err := c.Phone.FS().ReadFile(p)
	if err != nil {
		c.ToyPerror(err, "%s", name)
		return false
	}
	if a.Has('c') {
		return c.gzipStream(bytes.NewReader(data), c.Stdout, a.Has('d'), level)
	}
	out := name + ".gz"
	if a.Has('d') {
		base, ok := strings.CutSuffix(name, ".gz")
		if !ok || base == "" {
			c.ToyErr("no .gz: %s", name)
			return false
		}
		out = base
	}
	if _, err := c.Phone.FS().Stat(c.Abs(out)); err == nil && !a.Has('f') {
		c.ToyPerror(fs.ErrExist, "%s", out)
		return false
	}
	var buf bytes.Buffer
	if !c.gzipStream(bytes.NewReader(data), &buf, a.Has('d'), level) {
		return false
	}
	if err := c.WriteFile(out, buf.Bytes()); err != nil {
		c.ToyPerror(err, "%s", out)
		return false
	}
	if !a.Has('k') {
		if err := c.Phone.FS().Remove(p, false); err != nil {
			c.ToyPerror(err, "unlink %s", name)
			return false
		}
	}
	return true
}

// gzipChunk is how much input is read (and its deflate charged) at a
// time: small enough that the link carries one chunk's output while the
// next is compressed.
const gzipChunk = 256 << 10

// gzipStream compresses (or with dd decompresses) in to out, reporting
// errors as do_deflate does; false on failure.
func (c *Ctx) gzipStream(in io.Reader, out io.Writer, dd bool, level int) bool {
	if dd {
		return c.gunzipStream(in, out)
	}
	zw, err := gzip.NewWriterLevel(out, level)
	if err != nil {
		c.ToyErr("gzdopen")
		return false
	}
	// zlib's gzdopen header: no name, no time, OS 3 (Unix).
	zw.OS = 3
	buf := make([]byte, gzipChunk)
	for {
		n, rerr := io.ReadFull(in, buf)
		if n > 0 {
			if !c.Charge(c.Phone.Profile().DeflateCost(int64(n), level)) {
				return false
			}
			if _, err := zw.Write(buf[:n]); err != nil {
				c.ToyPerror(err, "read") // toybox reports a short gzwrite as perror_msg("read")
				return false
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			c.ToyPerror(rerr, "read")
			return false
		}
	}
	if err := zw.Close(); err != nil {
		c.ToyPerror(err, "gzclose")
		return false
	}
	return true
}

// gunzipStream inflates in to out; input that is not gzip is copied as
// it is, as zlib's gzread does.
func (c *Ctx) gunzipStream(in io.Reader, out io.Writer) bool {
	var head [2]byte
	n, _ := io.ReadFull(in, head[:])
	in = io.MultiReader(bytes.NewReader(head[:n]), in)
	if n < 2 || head[0] != 0x1f || head[1] != 0x8b {
		_, err := io.Copy(out, in)
		return err == nil
	}
	zr, err := gzip.NewReader(in)
	if err == nil {
		_, err = io.Copy(out, zr)
	}
	if err != nil {
		c.ToyErr("gzread: %s", zlibMessage(err))
		return false
	}
	return true
}

// zlibMessage is zlib's gzerror text for a decoding error (inflate.c's
// strm->msg, gzread.c's "unexpected end of file").
func zlibMessage(err error) string {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, gzip.ErrChecksum):
		return "incorrect data check"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "unexpected end of file"
	case errors.Is(err, gzip.ErrHeader):
		return "incorrect header check"
	case errors.As(err, &corrupt):
		return "invalid block type"
	}
	return err.Error()
}
