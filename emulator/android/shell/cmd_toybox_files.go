package shell

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/adb-connector/adb-connector/emulator/android/vfs"
)

// mvcp is toybox mv and cp (toys/posix/cp.c, cp_main and cp_node): the
// last operand is the destination (or -t DIR); several sources need a
// directory ("'DEST' not directory"); a source that cannot be renamed or
// read is "bad 'SRC': strerror"; a failed create names the destination.
func MvCp(c *Ctx, mv bool) int {
	spec := ToySpec{Opts: "vnFfiTt:", Long: map[string]rune{"verbose": 'v', "remove-destination": 'F'}, Min: 1, Max: -1}
	if !mv {
		spec.Opts = "DRHLPprudaslvnFfiTt:"
		spec.Long = map[string]rune{"parents": 'D', "remove-destination": 'F', "preserve": 0x1}
	}
	a, st, ok := c.ToyParse(spec)
	if !ok {
		return st
	}
	srcs := a.Operands
	dest := a.Val('t')
	if dest == "" {
		dest, srcs = srcs[len(srcs)-1], srcs[:len(srcs)-1]
	}
	if len(srcs) == 0 {
		c.ToyErr("Needs 2 arguments") // error_exit, not help_exit: no "(see ...)"
		return 1
	}
	fi, err := c.Phone.FS().Stat(c.Abs(dest))
	destDir := err == nil && isDir(fi)
	if !destDir && (len(srcs) > 1 || a.Has('t')) {
		c.ToyErr("'%s' not directory", dest)
		return 1
	}
	if a.Has('T') && destDir {
		c.ToyErr("'%s' is a directory", dest)
		return 1
	}
	recursive := mv || a.Has('r') || a.Has('R') || a.Has('a')
	status := 0
	for _, src := range srcs {
		src = trimSlashes(src)
		target := dest
		if destDir {
			target = dest + "/" + path.Base(src)
		}
		if a.Has('n') {
			if _, err := c.Phone.FS().Stat(c.Abs(target)); err == nil {
				continue
			}
		}
		if mv {
			// rename(2); toybox copies and deletes only on EXDEV, which
			// one file system never returns. mv -v prints nothing here
			// (only cp_node prints, and it does not run).
			err := vfs.ShellMay(c.Abs(src))
			if _, serr := c.Phone.FS().Stat(c.Abs(src)); serr != nil {
				err = serr
			}
			if err == nil {
				err = vfs.ShellMay(c.Abs(target))
			}
			if err == nil {
				err = c.Phone.FS().Rename(c.Abs(src), c.Abs(target))
			}
			if err != nil {
				c.ToyPerror(err, "bad '%s'", src)
				status = 1
			}
			continue
		}
		if err := c.copyTree(src, target, recursive, a); err != nil {
			status = 1
		}
	}
	return status
}

// copyTree is cp_node for one source: files are copied with their mode
// (mtime too with -p/-a), directories only with -r/-R/-a.
func (c *Ctx) copyTree(src, target string, recursive bool, a ToyArgs) error {
	fi, err := c.Phone.FS().Stat(c.Abs(src))
	if err != nil {
		c.ToyPerror(err, "bad '%s'", src)
		return err
	}
	if c.Abs(src) == c.Abs(target) {
		c.ToyErr("'%s' is '%s'", target, src)
		return fs.ErrExist
	}
	if tfi, err := c.Phone.FS().Stat(c.Abs(target)); err == nil && isDir(fi) && !isDir(tfi) {
		c.ToyErr("dir at '%s'", src)
		return fs.ErrExist
	}
	if a.Has('v') {
		c.Printf("cp '%s'\n", src)
	}
	if !isDir(fi) {
		data, err := c.Phone.FS().ReadFile(c.Abs(src))
		if err != nil {
			c.ToyPerror(err, "%s", src)
			return err
		}
		if tfi, err := c.Phone.FS().Stat(c.Abs(target)); err == nil && isDir(tfi) {
			c.ToyPerror(vfs.ErrIsDir, "%s", target)
			return vfs.ErrIsDir
		}
		if _, err := c.Phone.FS().Stat(path.Dir(c.Abs(target))); err != nil {
			c.ToyPerror(err, "%s", target)
			return err
		}
		mtime := c.Phone.Now()
		if a.Has('p') || a.Has('a') {
			mtime = fi.ModTime
		}
		err = vfs.ShellMay(c.Abs(target))
		if err == nil {
			err = c.Phone.FS().WriteFile(c.Abs(target), data, fi.Mode&0o7777, mtime)
		}
		if err != nil {
			c.ToyPerror(err, "%s", target)
			return err
		}
		return nil
	}
	if !recursive {
		// cp_node reports perror_msg("Skipped dir '%s'") with the
		// destination's name; errno is what the last call left: ENOENT
		// from stat'ing a missing destination, else cp_main's EXDEV.
		var errno error = syscall.EXDEV
		if _, err := c.Phone.FS().Stat(c.Abs(target)); err != nil {
			errno = fs.ErrNotExist
		}
		c.ToyPerror(errno, "Skipped dir '%s'", target)
		return fs.ErrInvalid
	}
	if strings.HasPrefix(c.Abs(target)+"/", c.Abs(src)+"/") {
		c.ToyErr("'%s' is '%s'", target, src)
		return fs.ErrInvalid
	}
	if err := c.mayCreate(c.Abs(target), false); err != nil {
		c.ToyPerror(err, "%s", target)
		return err
	}
	if err := c.Phone.FS().Mkdir(c.Abs(target), false); err != nil && !errors.Is(err, fs.ErrExist) {
		c.ToyPerror(err, "%s", target)
		return err
	}
	ents, _ := c.Phone.FS().ReadDir(c.Abs(src))
	var firstErr error
	for _, e := range ents {
		if err := c.copyTree(src+"/"+e.Name, target+"/"+e.Name, true, a); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

func trimSlashes(p string) string {
	for len(p) > 1 && strings.HasSuffix(p, "/") {
		p = p[:len(p)-1]
	}
	return p
}

func isDir(fi adbd.FileInfo) bool { return fi.Mode&0o170000 == vfs.ModeDir }

// Chmod is toybox chmod (toys/posix/chmod.c): MODE is octal or
// symbolic (string_to_mode in lib/lib.c, "bad mode 'M'"); a mode that
// looks like an option ("-w") is taken as the mode ('?' in its option
// string); -v prints "chmod 'FILE' to MODE"; -R recurses.
func Chmod(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "vfR", Min: 2, Max: -1, PassUnknown: true})
	if !ok {
		return st
	}
	flags, args := a.Flags, a.Operands
	modeStr := args[0]
	if _, ok := stringToMode(modeStr, 0, false); !ok {
		c.ToyErr("bad mode '%s'", modeStr)
		return 1
	}
	status := 0
	var apply func(p string)
	apply = func(p string) {
		fi, err := c.Phone.FS().Stat(c.Abs(p))
		if err != nil {
			c.ToyPerror(err, "%s", p)
			status = 1
			return
		}
		mode, _ := stringToMode(modeStr, fi.Mode, isDir(fi))
		if flags['v'] {
			c.Printf("chmod '%s' to %s\n", p, modeStr)
		}
		// chmod(2) of another user's file is EPERM; a read-only mount
		// answers EROFS first.
		err = vfs.ShellMay(c.Abs(p))
		if errors.Is(err, vfs.ErrAccess) {
			err = errPerm
		}
		if err == nil {
			err = c.Phone.FS().Chmod(c.Abs(p), mode&0o7777)
		}
		if err != nil {
			if !flags['f'] {
				c.ToyPerror(err, "chmod '%s' to %04o", p, mode&0o7777)
			}
			status = 1
		}
		if flags['R'] && isDir(fi) {
			ents, _ := c.Phone.FS().ReadDir(c.Abs(p))
			for _, e := range ents {
				apply(p + "/" + e.Name)
			}
		}
	}
	for _, p := range args[1:] {
		apply(p)
	}
	return status
}

// stringToMode is toybox's string_to_mode (lib/lib.c): an octal mode, or
// comma-separated [ugoa]*[=+-][rwxXst]* clauses applied to mode. The model
// applies no umask, so a clause without "who" acts as "a".
func stringToMode(s string, mode uint32, dir bool) (uint32, bool) {
	if s == "" {
		return 0, false
	}
	if s[0] >= '0' && s[0] <= '9' {
		m, err := strconv.ParseUint(s, 8, 32)
		if err != nil || m&^0o7777 != 0 {
			return 0, false
		}
		return uint32(m), true
	}
	const whos, hows, whats, whys = "ogua", "=+-", "xwrstX", "ogu"
	str := s
	for {
		dowho, dowhat := 0, 0
		for str != "" && strings.IndexByte(whos, str[0]) >= 0 {
			dowho |= 1 << strings.IndexByte(whos, str[0])
			str = str[1:]
		}
		if dowho == 0 {
			dowho = 8
		}
		for {
			if str == "" || strings.IndexByte(hows, str[0]) < 0 {
				return 0, false
			}
			dohow := str[0]
			str = str[1:]
			dowhat = 0
			for str != "" && strings.IndexByte(whats, str[0]) >= 0 {
				dowhat |= 1 << strings.IndexByte(whats, str[0])
				str = str[1:]
			}
			if dowhat&32 != 0 && (dir || mode&0o111 != 0) {
				dowhat |= 1
			}
			if i := strings.IndexByte(whys, firstByte(str)); dowhat == 0 && str != "" && i >= 0 {
				dowhat = int(mode>>(3*i)) & 7
				str = str[1:]
			}
			for i := 0; i < 4; i++ {
				for j := 0; j < 3; j++ {
					bit := false
					where := uint32(1) << (3*i + j)
					if i == 3 {
						if j == 0 {
							bit = dowhat&16 != 0
						} else if dowhat&8 != 0 && dowho&(8|1<<j) != 0 {
							bit = true
						}
					} else {
						if dowho&(8|1<<i) == 0 {
							continue
						}
						bit = dowhat&(1<<j) != 0
					}
					if dohow == '=' || (bit && dohow == '-') {
						mode &^= where
					}
					if bit && dohow != '-' {
						mode |= where
					}
				}
			}
			if str == "" {
				return mode & 0o7777, true
			}
			if str[0] == ',' {
				str = str[1:]
				break
			}
		}
	}
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// modeString is toybox's mode_to_string (lib/lib.c), as ls -l and stat %A
// print it: type letter, then rwx triplets with s/S and t/T.
func modeString(mode uint32) string {
	b := []byte("----------")
	switch mode & 0o170000 {
	case vfs.ModeDir:
		b[0] = 'd'
	case 0o120000:
		b[0] = 'l'
	case 0o020000:
		b[0] = 'c'
	case 0o060000:
		b[0] = 'b'
	case 0o010000:
		b[0] = 'p'
	case 0o140000:
		b[0] = 's'
	}
	for i := 0; i < 9; i++ {
		if mode&(1<<(8-i)) != 0 {
			b[1+i] = "rwx"[i%3]
		}
	}
	special := func(bit uint32, pos int, on, off byte) {
		if mode&bit != 0 {
			if b[pos] == 'x' {
				b[pos] = on
			} else {
				b[pos] = off
			}
		}
	}
	special(0o4000, 3, 's', 'S')
	special(0o2000, 6, 's', 'S')
	special(0o1000, 9, 't', 'T')
	return string(b)
}

// TouchFile is toybox touch (toys/posix/touch.c): sets the modification
// time to now, -d DATE, -t [[CC]YY]MMDDhhmm[.ss] or -r FILE's, creating
// missing files unless -c; failures are "touch: 'FILE': strerror".
func TouchFile(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "acd:fmr:t:h", Min: 1, Max: -1})
	if !ok {
		return st
	}
	when := c.Phone.Now()
	switch {
	case a.Has('r'):
		fi, err := c.Phone.FS().Stat(c.Abs(a.Val('r')))
		if err != nil {
			c.ToyPerror(err, "%s", a.Val('r')) // xstat: perror_exit_raw
			return 1
		}
		when = fi.ModTime
	case a.Has('d') || a.Has('t'):
		s := a.Val('d')
		if a.Has('t') {
			s = a.Val('t')
		}
		t, ok := parseDate(s, c.Phone.Now())
		if !ok {
			c.ToyErr("bad date '%s'", s)
			return 1
		}
		when = t
	}
	status := 0
	for _, p := range a.Operands {
		err := c.mayCreate(c.Abs(p), false)
		if err == nil {
			err = c.Phone.FS().Touch(c.Abs(p), when, !a.Has('c'))
		}
		if err != nil {
			if a.Has('c') && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			c.ToyPerror(err, "'%s'", p)
			status = 1
		}
	}
	return status
}

// parseDate reads the date forms toybox's xparsedate (lib/xwrap.c)
// accepts that scripts use: @SECONDS, [[CC]YY]MMDDhhmm[.ss] and
// "YYYY-MM-DD[ T]hh:mm[:ss]" (UTC, the phone's time zone).
func parseDate(s string, now time.Time) (time.Time, bool) {
	if n, ok := strings.CutPrefix(s, "@"); ok {
		secs, err := strconv.ParseInt(n, 10, 64)
		return time.Unix(secs, 0).UTC(), err == nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02", "15:04:05", "15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			if !strings.Contains(layout, "2006") {
				y, m, d := now.UTC().Date()
				t = time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
			}
			return t, true
		}
	}
	digits, secs, _ := strings.Cut(s, ".")
	if _, err := strconv.Atoi(digits); err != nil || len(digits)%2 != 0 || len(digits) < 8 || len(digits) > 12 {
		return time.Time{}, false
	}
	year := now.UTC().Year()
	switch len(digits) {
	case 12:
		year, _ = strconv.Atoi(digits[:4])
		digits = digits[4:]
	case 10:
		yy, _ := strconv.Atoi(digits[:2])
		year = 1900 + yy
		if yy < 69 {
			year = 2000 + yy
		}
		digits = digits[2:]
	}
	num := func(i int) int { n, _ := strconv.Atoi(digits[i : i+2]); return n }
	sec := 0
	if secs != "" {
		n, err := strconv.Atoi(secs)
		if err != nil || len(secs) != 2 {
			return time.Time{}, false
		}
		sec = n
	}
	t := time.Date(year, time.Month(num(0)), num(2), num(4), num(6), sec, 0, time.UTC)
	if int(t.Month()) != num(0) || t.Day() != num(2) {
		return time.Time{}, false
	}
	return t, true
}

// inode is a stable made-up inode number for p (stat %i).
func inode(p string) uint64 {
	h := fnv.New32a()
	h.Write([]byte(p))
	return uint64(h.Sum32()%900000) + 100000
}

// blocks is st_blocks (512-byte units) of a file on a 4 KiB-block file
// system, as ls -s/-l's "total" and stat %b count it.
func blocks(fi adbd.FileInfo) int64 {
	if fi.Size == 0 || fi.Mode&0o170000 == 0o120000 { // empty, or a fast symlink
		return 0
	}
	return (fi.Size + 4095) / 4096 * 8
}

// Device numbers stat prints: /sdcard is MediaProvider's FUSE mount
// (0:95 here), the rest the userdata partition (254:42, a dm device).
func devNumber(p string) uint64 {
	if p == "/sdcard" || strings.HasPrefix(p, "/sdcard/") {
		return 95
	}
	return 254<<8 | 42
}

// Stat is toybox stat (toys/other/stat.c): the default format, or -c
// FORMAT with printf-style widths on each %-escape; a missing file is
// "stat: 'FILE': strerror". File systems (-f) are not modelled.
func Stat(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "c:fLt", Long: map[string]rune{"format": 'c'}, Min: 1, Max: -1})
	if !ok {
		return st
	}
	format := "  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: %B\t %F\n" +
		"Device: %Dh/%dd\t Inode: %i\t Links: %h\t Device type: %t,%T\n" +
		"Access: (%04a/%A)\tUid: (%5u/%8U)\tGid: (%5g/%8G)\n" +
		"Access: %x\nModify: %y\nChange: %z"
	if a.Has('t') {
		format = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %o"
	}
	if a.Has('c') {
		format = a.Val('c')
	}
	status := 0
	for _, name := range a.Operands {
		t := statTarget{name: name, path: c.Abs(name)}
		if target, ok := vfs.LinkAt(c.Dir, name); ok && !a.Has('L') {
			t.fi, t.link, t.nlink = vfs.LinkInfo(path.Base(name), target), target, 1 // lstat
		} else {
			fi, err := c.Phone.FS().Stat(t.path)
			if err != nil {
				c.ToyPerror(err, "'%s'", name)
				status = 1
				continue
			}
			t.fi, t.nlink = fi, c.Phone.FS().Nlink(t.path)
			t.fi.Mode = vfs.ShownMode(t.path, fi.Mode)
		}
		var b strings.Builder
		for i := 0; i < len(format); i++ {
			if format[i] != '%' || i+1 == len(format) {
				b.WriteByte(format[i])
				continue
			}
			if format[i+1] == '%' {
				b.WriteByte('%')
				i++
				continue
			}
			j := i + 1
			for j < len(format) && strings.IndexByte("-+ #0123456789.'", format[j]) >= 0 {
				j++
			}
			if j == len(format) {
				c.ToyErr("bad %s", format[i:])
				return 1
			}
			b.WriteString(statField(format[j], format[i+1:j], t))
			i = j
		}
		c.Printf("%s\n", b.String())
	}
	return status
}

// statTarget is what stat describes: an operand, its absolute path, its
// file info, and a symbolic link's target when it is one.
type statTarget struct {
	name, path string
	fi         adbd.FileInfo
	nlink      int
	link       string
}

// statField renders one stat escape with its printf flags and width.
func statField(conv byte, pat string, t statTarget) string {
	pat = strings.ReplaceAll(pat, "'", "") // grouping: no effect in the C locale
	num := func(verb string, v int64) string { return fmt.Sprintf("%"+pat+verb, v) }
	str := func(v string) string { return fmt.Sprintf("%"+pat+"s", v) }
	user, uid, group, gid := vfs.Owner(t.path)
	if t.link != "" {
		user, uid, group, gid = "root", 0, "root", 0
	}
	stamp := func(t time.Time) string {
		return t.UTC().Format("2006-01-02 15:04:05.000000000 -0700")
	}
	fi, p, nlink := t.fi, t.path, t.nlink
	dev := int64(devNumber(p))
	switch conv {
	case 'a':
		return num("o", int64(fi.Mode&0o7777))
	case 'A':
		return str(modeString(fi.Mode))
	case 'b':
		return num("d", blocks(fi))
	case 'B':
		return num("d", 512)
	case 'd':
		return num("d", dev)
	case 'D':
		return num("x", dev)
	case 'f':
		return num("x", int64(fi.Mode))
	case 'F':
		switch {
		case t.link != "":
			return str("symbolic link")
		case fi.Mode&0o170000 == vfs.ModeCharDev:
			return str("character device")
		case isDir(fi):
			return str("directory")
		case fi.Size == 0:
			return str("regular empty file")
		}
		return str("regular file")
	case 'g':
		return num("d", int64(gid))
	case 'G':
		return str(group)
	case 'h':
		return num("d", int64(nlink))
	case 'i':
		return num("d", int64(inode(p)))
	case 'n':
		return str(t.name)
	case 'N':
		if t.link != "" {
			return t.name + " -> '" + t.link + "'"
		}
		return t.name
	case 'o':
		return num("d", 4096)
	case 's':
		return num("d", fi.Size)
	case 't', 'T':
		major, minor, _ := vfs.CharDevice(p)
		if conv == 'T' {
			return num("x", int64(minor))
		}
		return num("x", int64(major))
	case 'u':
		return num("d", int64(uid))
	case 'U':
		return str(user)
	case 'x', 'y', 'z':
		return str(stamp(fi.ModTime))
	case 'X', 'Y', 'Z':
		return num("d", fi.ModTime.Unix())
	}
	return "?"
}

// Which is toybox which (toys/other/which.c): the first $PATH match of
// each name, or the name itself when it has a slash and is an executable
// file; status 1 if any is missing, with nothing on stderr.
func Which(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "a", Min: 1, Max: -1})
	if !ok {
		return st
	}
	status := 0
	for _, name := range a.Operands {
		if strings.Contains(name, "/") {
			p := c.Abs(name)
			if fi, err := c.Phone.FS().Stat(p); err == nil && !isDir(fi) && fi.Mode&0o111 != 0 {
				c.Printf("%s\n", name)
				continue
			}
			if dir, base := path.Split(p); dir == "/system/bin/" {
				if _, ok := c.Phone.WhichPath(base); ok {
					c.Printf("%s\n", name)
					continue
				}
			}
			status = 1
			continue
		}
		p, ok := c.Phone.WhichPath(name)
		if !ok {
			status = 1
			continue
		}
		c.Printf("%s\n", p)
	}
	return status
}
