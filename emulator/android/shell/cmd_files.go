package shell

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
func ErrText(err error) string {
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

// Cat is toybox cat (toys/posix/cat.c), /system/bin/cat: what runs
// when cat gets options (mksh's builtin takes the rest). Files in order,
// stdin for none or "-"; -v shows control characters as ^X and high bytes
// as M-X, -t also tabs, -e marks line ends with $; an unreadable file is
// "cat: NAME: strerror" (loopfiles).
func Cat(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "uvte", Max: -1})
	if !ok {
		return st
	}
	ins, ok := c.loopFiles(a.Operands)
	for _, in := range ins {
		if !a.Has('v') && !a.Has('t') && !a.Has('e') {
			c.Stdout.Write(in.data)
			continue
		}
		var b bytes.Buffer
		for _, ch := range in.data {
			if ch > 126 && a.Has('v') {
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
					if a.Has('e') {
						b.WriteByte('$')
					}
				} else if ch == '\t' && a.Has('t') || ch != '\t' && a.Has('v') {
					b.WriteByte('^')
					b.WriteByte(ch + '@')
					continue
				}
			}
			b.WriteByte(ch)
		}
		c.Stdout.Write(b.Bytes())
	}
	if !ok {
		return 1
	}
	return 0
}

// Rm is toybox rm (toys/posix/rm.c): -f ignores missing files, -r/-R
// removes trees, -v names what it removed ("rm 'F'", "rmdir 'D'").
func Rm(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "fiRrv", Long: map[string]rune{"force": 'f'}, Max: -1})
	if !ok {
		return st
	}
	if len(a.Operands) == 0 && !a.Has('f') {
		c.ToyUsage("Needs 1 argument") // rm_main: "<1" would refuse "rm -f"
		return 1
	}
	status := 0
	for _, p := range a.Operands {
		if p == "/" {
			c.ToyErr("rm /. if you mean it")
			status = 1
			continue
		}
		if path.Base(p) == ".." {
			c.ToyErr("bad path %s", p)
			status = 1
			continue
		}
		if _, ok := vfs.LinkAt(c.Dir, p); ok {
			// rm removes the link itself, which lives on the read-only root.
			c.ToyPerror(vfs.ShellMay(c.Abs(p)), "%s", p)
			status = 1
			continue
		}
		fi, err := c.Phone.FS().Stat(c.Abs(p))
		if err != nil {
			if a.Has('f') && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			c.ToyPerror(err, "%s", p)
			status = 1
			continue
		}
		if isDir(fi) && !a.Has('r') && !a.Has('R') {
			c.ToyPerror(vfs.ErrIsDir, "%s", p) // unlinkat without AT_REMOVEDIR
			status = 1
			continue
		}
		if !c.rmTree(p, c.Abs(p), fi, a.Has('v')) {
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
func (c *Ctx) rmTree(name, p string, fi adbd.FileInfo, verbose bool) bool {
	if isDir(fi) {
		ents, _ := c.Phone.FS().ReadDir(p)
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
		err = c.Phone.FS().Remove(p, true)
	}
	if err != nil {
		c.ToyPerror(err, "%s", name)
		return false
	}
	if verbose {
		kind := "rm"
		if isDir(fi) {
			kind = "rmdir"
		}
		c.Printf("%s '%s'\n", kind, name)
	}
	return true
}

// Mkdir is toybox mkdir (toys/posix/mkdir.c, mkpathat in lib/lib.c):
// "mkdir: 'DIR': strerror"; -p makes parents and accepts existing
// directories; -v reports each directory made on stderr; -m sets the mode.
func Mkdir(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "vpm:Z:", Long: map[string]rune{"parent": 'p', "parents": 'p'}, Min: 1, Max: -1})
	if !ok {
		return st
	}
	var mode uint32
	if a.Has('m') {
		m, ok := stringToMode(a.Val('m'), 0o777, true)
		if !ok {
			c.ToyErr("bad mode '%s'", a.Val('m'))
			return 1
		}
		mode = m
	}
	status := 0
	for _, p := range a.Operands {
		var made []string
		if a.Has('p') {
			for q := c.Abs(p); q != "/"; q = path.Dir(q) {
				if _, err := c.Phone.FS().Stat(q); err == nil {
					break
				}
				made = append([]string{q}, made...)
			}
		}
		err := c.mayCreate(c.Abs(p), a.Has('p'))
		if err == nil {
			err = c.Phone.FS().Mkdir(c.Abs(p), a.Has('p'))
		}
		if err != nil {
			c.ToyPerror(err, "'%s'", p)
			status = 1
			continue
		}
		if a.Has('m') {
			c.Phone.FS().Chmod(c.Abs(p), mode)
		}
		if a.Has('v') {
			if !a.Has('p') {
				made = []string{p}
			}
			for _, m := range made {
				c.Errorf("mkdir: created directory '%s'\n", m)
			}
		}
	}
	return status
}

// mayCreate checks that the shell user may create p (and, with parents,
// each missing directory above it): the first it may not is the error.
func (c *Ctx) mayCreate(p string, parents bool) error {
	if _, err := c.Phone.FS().Stat(p); err == nil {
		return nil
	}
	if parents && p != "/" {
		if err := c.mayCreate(path.Dir(p), true); err != nil {
			return err
		}
	} else if _, err := c.Phone.FS().Stat(path.Dir(p)); err != nil {
		return nil // the missing parent is the error mkdir reports
	}
	return vfs.ShellMay(p)
}

// writeFile writes command output to a device file (screencap FILE, ...).
func (c *Ctx) WriteFile(p string, data []byte) error {
	p = c.Abs(p)
	if _, err := c.Phone.FS().Stat(path.Dir(p)); err != nil {
		return err
	}
	return c.Phone.FS().WriteFile(p, data, 0o660, c.Phone.Now())
}
