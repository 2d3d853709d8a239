package android

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"syscall"

	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/adb-connector/adb-connector/emulator/android/vfs"
)

// errPerm is EPERM, what the shell user gets for privileged calls.
var errPerm error = syscall.EPERM

// errText renders an FS error the way toybox prints it: bionic's strerror.
func errText(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	case errors.Is(err, errPerm):
		return "Operation not permitted" // bionic's strerror(EPERM)
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	case errors.Is(err, vfs.ErrIsDir):
		return "Is a directory"
	case errors.Is(err, vfs.ErrNotDir):
		return "Not a directory"
	case errors.Is(err, syscall.ENOTEMPTY):
		return "Directory not empty"
	case errors.Is(err, syscall.EINVAL):
		return "Invalid argument"
	case errors.Is(err, syscall.EBUSY):
		return "Device or resource busy"
	case errors.Is(err, syscall.EROFS):
		return "Read-only file system"
	case errors.Is(err, syscall.EXDEV):
		return "Cross-device link"
	}
	return err.Error()
}

// cmdCat is toybox cat (toys/posix/cat.c), /system/bin/cat: what runs
// when cat gets options (mksh's builtin takes the rest). Files in order,
// stdin for none or "-"; -v shows control characters as ^X and high bytes
// as M-X, -t also tabs, -e marks line ends with $; an unreadable file is
// "cat: NAME: strerror" (loopfiles).
func cmdCat(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{opts: "uvte", max: -1})
	if !ok {
		return st
	}
	ins, ok := c.loopFiles(a.args)
	for _, in := range ins {
		if !a.has('v') && !a.has('t') && !a.has('e') {
			c.stdout.Write(in.data)
			continue
		}
		var b bytes.Buffer
		for _, ch := range in.data {
			if ch > 126 && a.has('v') {
				if ch > 127 {
					b.WriteString("M-")
					ch -= 128
				}
				if ch == 127 {
					b.WriteString("^?")
					continue
				}
			}
			if ch < 32 {
				if ch == '\n' {
					if a.has('e') {
						b.WriteByte('$')
					}
				} else if ch == '\t' && a.has('t') || ch != '\t' && a.has('v') {
					b.WriteByte('^')
					b.WriteByte(ch + '@')
					continue
				}
			}
			b.WriteByte(ch)
		}
		c.stdout.Write(b.Bytes())
	}
	if !ok {
		return 1
	}
	return 0
}

// cmdRm is toybox rm (toys/posix/rm.c): -f ignores missing files, -r/-R
// removes trees, -v names what it removed ("rm 'F'", "rmdir 'D'").
func cmdRm(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{opts: "fiRrv", long: map[string]rune{"force": 'f'}, max: -1})
	if !ok {
		return st
	}
	if len(a.args) == 0 && !a.has('f') {
		c.toyUsage("Needs 1 argument") // rm_main: "<1" would refuse "rm -f"
		return 1
	}
	status := 0
	for _, p := range a.args {
		if p == "/" {
			c.toyErr("rm /. if you mean it")
			status = 1
			continue
		}
		if path.Base(p) == ".." {
			c.toyErr("bad path %s", p)
			status = 1
			continue
		}
		if _, ok := vfs.LinkAt(c.dir, p); ok {
			// rm removes the link itself, which lives on the read-only root.
			c.toyPerror(vfs.ShellMay(c.abs(p)), "%s", p)
			status = 1
			continue
		}
		fi, err := c.d.fs.Stat(c.abs(p))
		if err != nil {
			if a.has('f') && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			c.toyPerror(err, "%s", p)
			status = 1
			continue
		}
		if isDir(fi) && !a.has('r') && !a.has('R') {
			c.toyPerror(vfs.ErrIsDir, "%s", p) // unlinkat without AT_REMOVEDIR
			status = 1
			continue
		}
		if !c.rmTree(p, c.abs(p), fi, a.has('v')) {
			status = 1
		}
	}
	return status
}

// rmTree removes p (named name) as do_rm visits it: a directory's
// entries first, then the directory, printing "rm 'NAME'" / "rmdir
// 'NAME'" with verbose. A failure is reported for the entry itself; the
// directories above it then fail silently (not empty), as toybox marks
// them. It reports whether p is gone.
func (c *cmdCtx) rmTree(name, p string, fi adbd.FileInfo, verbose bool) bool {
	if isDir(fi) {
		ents, _ := c.d.fs.ReadDir(p)
		gone := true
		for _, e := range ents {
			gone = c.rmTree(name+"/"+e.Name, p+"/"+e.Name, e, verbose) && gone
		}
		if !gone {
			return false
		}
	}
	err := vfs.ShellMay(p)
	if err == nil {
		err = c.d.fs.Remove(p, true)
	}
	if err != nil {
		c.toyPerror(err, "%s", name)
		return false
	}
	if verbose {
		kind := "rm"
		if isDir(fi) {
			kind = "rmdir"
		}
		c.printf("%s '%s'\n", kind, name)
	}
	return true
}

// cmdMkdir is toybox mkdir (toys/posix/mkdir.c, mkpathat in lib/lib.c):
// "mkdir: 'DIR': strerror"; -p makes parents and accepts existing
// directories; -v reports each directory made on stderr; -m sets the mode.
func cmdMkdir(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{opts: "vpm:Z:", long: map[string]rune{"parent": 'p', "parents": 'p'}, min: 1, max: -1})
	if !ok {
		return st
	}
	var mode uint32
	if a.has('m') {
		m, ok := stringToMode(a.val('m'), 0o777, true)
		if !ok {
			c.toyErr("bad mode '%s'", a.val('m'))
			return 1
		}
		mode = m
	}
	status := 0
	for _, p := range a.args {
		var made []string
		if a.has('p') {
			for q := c.abs(p); q != "/"; q = path.Dir(q) {
				if _, err := c.d.fs.Stat(q); err == nil {
					break
				}
				made = append([]string{q}, made...)
			}
		}
		err := c.mayCreate(c.abs(p), a.has('p'))
		if err == nil {
			err = c.d.fs.Mkdir(c.abs(p), a.has('p'))
		}
		if err != nil {
			c.toyPerror(err, "'%s'", p)
			status = 1
			continue
		}
		if a.has('m') {
			c.d.fs.Chmod(c.abs(p), mode)
		}
		if a.has('v') {
			if !a.has('p') {
				made = []string{p}
			}
			for _, m := range made {
				c.errorf("mkdir: created directory '%s'\n", m)
			}
		}
	}
	return status
}

// mayCreate checks that the shell user may create p (and, with parents,
// each missing directory above it): the first it may not is the error.
func (c *cmdCtx) mayCreate(p string, parents bool) error {
	if _, err := c.d.fs.Stat(p); err == nil {
		return nil
	}
	if parents && p != "/" {
		if err := c.mayCreate(path.Dir(p), true); err != nil {
			return err
		}
	} else if _, err := c.d.fs.Stat(path.Dir(p)); err != nil {
		return nil // the missing parent is the error mkdir reports
	}
	return vfs.ShellMay(p)
}

// writeFile writes command output to a device file (screencap FILE, ...).
func (c *cmdCtx) writeFile(p string, data []byte) error {
	p = c.abs(p)
	if _, err := c.d.fs.Stat(path.Dir(p)); err != nil {
		return err
	}
	return c.d.fs.WriteFile(p, data, 0o660, c.d.now())
}
