package android

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/adbd"
)

// errText renders an FS error the way toybox prints it.
func errText(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	case errors.Is(err, errIsDir):
		return "Is a directory"
	case errors.Is(err, errNotDir):
		return "Not a directory"
	}
	return err.Error()
}

// splitFlags separates leading "-x" style flags (combined letters allowed)
// from operands; "--" ends flags.
func splitFlags(args []string) (flags map[rune]bool, rest []string) {
	flags = map[rune]bool{}
	for i, a := range args {
		if a == "--" {
			return flags, args[i+1:]
		}
		if len(a) < 2 || a[0] != '-' {
			return flags, args[i:]
		}
		for _, r := range a[1:] {
			flags[r] = true
		}
	}
	return flags, nil
}

// cmdCat is toybox cat: files in order, stdin when none or "-".
func cmdCat(c *cmdCtx) int {
	_, files := splitFlags(c.args[1:])
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	for _, f := range files {
		if f == "-" {
			io.Copy(c.stdout, c.stdin)
			continue
		}
		data, err := c.d.fs.ReadFile(c.abs(f))
		if err != nil {
			c.errorf("cat: %s: %s\n", f, errText(err))
			status = 1
			continue
		}
		c.stdout.Write(data)
	}
	return status
}

// cmdLs is toybox ls, non-tty output (one name per line); -l long format,
// -a dot files, -d the directory itself.
func cmdLs(c *cmdCtx) int {
	flags, paths := splitFlags(c.args[1:])
	if len(paths) == 0 {
		paths = []string{"."}
	}
	status := 0
	for i, p := range paths {
		fi, err := c.d.fs.Stat(c.abs(p))
		if err != nil {
			c.errorf("ls: %s: %s\n", p, errText(err))
			status = 1
			continue
		}
		if fi.Mode&0o170000 != modeDir || flags['d'] {
			c.lsLine(flags['l'], fi, p)
			continue
		}
		if len(paths) > 1 {
			if i > 0 {
				c.printf("\n")
			}
			c.printf("%s:\n", p)
		}
		ents, _ := c.d.fs.ReadDir(c.abs(p))
		if flags['l'] {
			c.printf("total %d\n", len(ents)*8)
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name, ".") && !flags['a'] {
				continue
			}
			c.lsLine(flags['l'], e, e.Name)
		}
	}
	return status
}

func (c *cmdCtx) lsLine(long bool, fi adbd.FileInfo, name string) {
	if !long {
		c.printf("%s\n", name)
		return
	}
	mode := fileInfo{fi}.Mode().String()
	c.printf("%s %d shell shell %d %s %s\n", mode, 1, fi.Size, fi.ModTime.UTC().Format("2006-01-02 15:04"), name)
}

// cmdRm is toybox rm (-f, -r/-R).
func cmdRm(c *cmdCtx) int {
	flags, paths := splitFlags(c.args[1:])
	if len(paths) == 0 && !flags['f'] {
		c.errorf("rm: Needs 1 argument (see \"rm --help\")\n")
		return 1
	}
	status := 0
	for _, p := range paths {
		if err := c.d.fs.Remove(c.abs(p), flags['r'] || flags['R']); err != nil {
			if flags['f'] && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if errors.Is(err, errIsDir) {
				c.errorf("rm: %s: is a directory\n", p) // toybox wording
			} else {
				c.errorf("rm: %s: %s\n", p, errText(err))
			}
			status = 1
		}
	}
	return status
}

// cmdMkdir is toybox mkdir (-p).
func cmdMkdir(c *cmdCtx) int {
	flags, paths := splitFlags(c.args[1:])
	if len(paths) == 0 {
		c.errorf("mkdir: Needs 1 argument (see \"mkdir --help\")\n")
		return 1
	}
	status := 0
	for _, p := range paths {
		if err := c.d.fs.Mkdir(c.abs(p), flags['p']); err != nil {
			c.errorf("mkdir: '%s': %s\n", p, errText(err))
			status = 1
		}
	}
	return status
}

// writeFile writes command output to a device file (screencap FILE, ...).
func (c *cmdCtx) writeFile(p string, data []byte) error {
	p = c.abs(p)
	if _, err := c.d.fs.Stat(path.Dir(p)); err != nil {
		return err
	}
	return c.d.fs.WriteFile(p, data, 0o660, c.d.now())
}
