package shell

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/adb-connector/adb-connector/emulator/android/vfs"
)

// Ls is toybox ls (toys/posix/ls.c, ls_main and listfiles). adb shell
// with a command has no terminal, so output is one name per line (an
// implied -1) unless -m. Long listings pad each column to its widest entry
// and print the time as "%F %H:%M" (toybox always uses long-iso); -h
// sizes, -s blocks, -i inodes, -n numeric ids, -F/-p markers, -t -S -r
// order, -R recursion, -d, -a/-A. Operands
// that are files are listed first, then each directory under a "DIR:"
// title, unless a single directory was named alone.
func Ls(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{
		Opts: "ZgoACFHLNRSabcdfhiklmnpqrstuw#x1",
		Long: map[string]rune{"color": 0x1, "full-time": 0x2, "show-control-chars": 0x3},
		Max:  -1,
	})
	if !ok {
		return st
	}
	if a.Has('d') {
		a.Flags['R'] = false
	}
	l := &lister{c: c, a: a, long: a.Has('l') || a.Has('o') || a.Has('n') || a.Has('g')}
	operands := a.Operands
	if len(operands) == 0 {
		operands = []string{"."}
	}
	status := 0
	var top []lsEntry
	// Operands that are symbolic links are followed unless -l, -d or -F
	// (without -L or -H) ask about the link itself (ls_main's "sym").
	follow := !(a.Has('l') || a.Has('d') || a.Has('F')) || a.Has('L') || a.Has('H')
	for _, p := range operands {
		if target, ok := vfs.LinkAt(c.Dir, p); ok && !follow {
			top = append(top, lsEntry{name: p, path: "/", fi: vfs.LinkInfo(path.Base(p), target), link: target})
			continue
		}
		fi, err := c.Phone.FS().Stat(c.Abs(p))
		if err != nil {
			c.ToyPerror(err, "%s", p) // perror_msg_raw(*s)
			status = 1
			continue
		}
		top = append(top, lsEntry{name: p, path: c.Abs(p), fi: fi})
	}
	if len(top) == 1 && isDir(top[0].fi) && !a.Has('d') {
		l.listDir(top[0], a.Has('R'))
		l.flush()
		return status
	}
	l.sort(top)
	w := l.widths(top)
	for _, e := range top {
		if isDir(e.fi) && !a.Has('d') {
			continue
		}
		l.entry(e, w)
	}
	l.flush()
	if !a.Has('d') {
		for _, e := range top {
			if isDir(e.fi) {
				l.listDir(e, true)
				l.flush()
			}
		}
	}
	return status
}

type lsEntry struct {
	name string // as displayed: the operand, or the directory entry name
	path string // absolute
	fi   adbd.FileInfo
	link string // a symbolic link's target (see rootLinks)
}

// lister carries ls's output state across directories.
type lister struct {
	c       *Ctx
	a       ToyArgs
	long    bool
	titled  bool // something was printed: later titles get a blank line
	line    strings.Builder
	lineLen int // -m: width of the current output line
	count   int // entries printed since the last flush
}

// lsWidths are the column widths of one listing (entrylen's totals).
type lsWidths struct{ inode, blocks, links, user, group, size, label int }

func (l *lister) sort(es []lsEntry) {
	slices.SortStableFunc(es, func(x, y lsEntry) int {
		r := 0
		if l.a.Has('S') {
			r = cmp.Compare(y.fi.Size, x.fi.Size)
		}
		if l.a.Has('t') && r == 0 {
			r = y.fi.ModTime.Compare(x.fi.ModTime)
		}
		if r == 0 {
			r = strings.Compare(x.name, y.name)
		}
		if l.a.Has('r') {
			r = -r
		}
		return r
	})
}

func (l *lister) owner(e lsEntry) (user, group string) {
	u, uid, g, gid := vfs.Owner(e.path)
	if e.link != "" {
		u, uid, g, gid = "root", 0, "root", 0
	}
	if l.a.Has('n') {
		return strconv.Itoa(uid), strconv.Itoa(gid)
	}
	return u, g
}

func (l *lister) widths(es []lsEntry) lsWidths {
	var w lsWidths
	for _, e := range es {
		u, g := l.owner(e)
		w.links = max(w.links, len(strconv.Itoa(l.nlink(e))))
		w.user = max(w.user, len(u))
		w.group = max(w.group, len(g))
		if major, _, ok := vfs.CharDevice(e.path); ok && e.link == "" {
			// "cheating slightly": minor numbers are taken as 3 digits
			w.size = max(w.size, len(strconv.Itoa(major))+5)
		} else {
			w.size = max(w.size, len(l.size(e.fi.Size, 1)))
		}
		w.inode = max(w.inode, len(strconv.FormatUint(inode(e.path), 10)))
		w.blocks = max(w.blocks, len(l.size(blocks(e.fi), 1024)))
		w.label = max(w.label, len(vfs.FileLabel(e.path)))
	}
	return w
}

func (l *lister) mode(e lsEntry) uint32 {
	if e.link != "" {
		return e.fi.Mode
	}
	return vfs.ShownMode(e.path, e.fi.Mode)
}

func (l *lister) nlink(e lsEntry) int {
	if e.link != "" {
		return 1
	}
	return l.c.Phone.FS().Nlink(e.path)
}

// size is print_with_h: a number of units as is, or with -h the bytes it
// stands for in human_readable() form (a 512-byte block count is taken
// for kilobytes there, as toybox does).
func (l *lister) size(n int64, unit int64) string {
	if l.a.Has('h') {
		return humanReadable(uint64(n * unit))
	}
	return strconv.FormatInt(n, 10)
}

// humanReadable is toybox's human_readable() (lib/lib.c
// human_readable_long, 3 digits, 1024 steps): "999", "1.2K", "12K", "1.0M".
func humanReadable(num uint64) string {
	unit, snap := 0, uint64(0)
	for len(strconv.FormatUint(num, 10)) > 3 {
		snap = num
		num = (num + 512) / 1024
		unit++
	}
	s := strconv.FormatUint(num, 10)
	if unit > 0 && len(s) == 1 {
		whole := snap / 1024
		frac := ((snap-whole*1024)*100 + 50) / 1024 / 10
		s = strconv.FormatUint(whole, 10) + "." + strconv.FormatUint(frac, 10)
	}
	if unit > 0 {
		s += string(" KMGTPEZY"[unit])
	}
	return s
}

// entry prints one listing entry (listfiles' output loop).
func (l *lister) entry(e lsEntry, w lsWidths) {
	var b strings.Builder
	if l.a.Has('i') {
		fmt.Fprintf(&b, "%*d ", w.inode, inode(e.path))
	}
	if l.a.Has('s') {
		fmt.Fprintf(&b, "%*s ", w.blocks, l.size(blocks(e.fi), 1024))
	}
	if l.long {
		u, g := l.owner(e)
		fmt.Fprintf(&b, "%s %*d", modeString(l.mode(e)), w.links, l.nlink(e))
		if !l.a.Has('g') {
			fmt.Fprintf(&b, " %-*s", w.user, u)
		}
		if !l.a.Has('o') {
			fmt.Fprintf(&b, " %-*s", w.group, g)
		}
	}
	// -Z: the SELinux label, " LABEL " in a long listing, "LABEL " before
	// the name otherwise (toybox ls.c: printf(" %-*s "+!FLAG(l), ...)).
	if l.a.Has('Z') && l.a.Has('l') {
		fmt.Fprintf(&b, " %-*s ", w.label, vfs.FileLabel(e.path))
	} else if l.a.Has('Z') {
		fmt.Fprintf(&b, "%-*s ", w.label, vfs.FileLabel(e.path))
	}
	if l.long {
		if major, minor, ok := vfs.CharDevice(e.path); ok && e.link == "" {
			fmt.Fprintf(&b, "% *d,% 4d", w.size-4, major, minor)
		} else {
			fmt.Fprintf(&b, " %*s", w.size, l.size(e.fi.Size, 1))
		}
		fmt.Fprintf(&b, " %s ", e.fi.ModTime.UTC().Format("2006-01-02 15:04"))
	}
	b.WriteString(e.name)
	if l.long && e.link != "" {
		b.WriteString(" -> " + e.link)
	}
	switch {
	case (l.a.Has('F') || l.a.Has('p')) && isDir(e.fi):
		b.WriteByte('/')
	case l.a.Has('F') && e.link != "":
		b.WriteByte('@')
	case l.a.Has('F') && e.fi.Mode&0o111 != 0:
		b.WriteByte('*')
	}
	l.titled = true
	s := b.String()
	if !l.a.Has('m') || l.long {
		l.c.Printf("%s\n", s)
		return
	}
	// -m: "a, b, c", wrapping before an entry that would pass column 80.
	if l.count > 0 {
		l.line.WriteByte(',')
		if l.lineLen+1+len(s)+1 > 80 {
			l.line.WriteByte('\n')
			l.lineLen = 0
		} else {
			l.line.WriteByte(' ')
			l.lineLen += 2
		}
	}
	l.line.WriteString(s)
	l.lineLen += len(s) + 1
	l.count++
}

// flush ends an -m line.
func (l *lister) flush() {
	if l.line.Len() > 0 {
		l.c.Printf("%s\n", l.line.String())
	}
	l.line.Reset()
	l.lineLen, l.count = 0, 0
}

// listDir lists one directory, with its "DIR:" title when titled, and
// recurses with -R.
func (l *lister) listDir(dir lsEntry, titled bool) {
	infos, _ := l.c.Phone.FS().ReadDir(dir.path)
	var es []lsEntry
	if l.a.Has('a') || l.a.Has('f') {
		parent, _ := l.c.Phone.FS().Stat(path.Dir(dir.path))
		es = append(es, lsEntry{name: ".", path: dir.path, fi: dir.fi}, lsEntry{name: "..", path: path.Dir(dir.path), fi: parent})
	}
	for _, fi := range infos {
		if strings.HasPrefix(fi.Name, ".") && !l.a.Has('a') && !l.a.Has('A') && !l.a.Has('f') {
			continue
		}
		e := lsEntry{name: fi.Name, path: path.Join(dir.path, fi.Name), fi: fi}
		if target, ok := vfs.LinkAt(dir.path, fi.Name); ok {
			e.fi, e.link = vfs.LinkInfo(fi.Name, target), target
		}
		es = append(es, e)
	}
	if titled {
		if l.titled {
			l.c.Printf("\n")
		}
		l.c.Printf("%s:\n", dir.name)
		l.titled = true
	}
	l.sort(es)
	w := l.widths(es)
	if l.long || l.a.Has('s') {
		var total int64
		for _, e := range es {
			total += blocks(e.fi)
		}
		l.c.Printf("total %s\n", l.size(total, 1024))
	}
	for _, e := range es {
		l.entry(e, w)
	}
	l.flush()
	if !l.a.Has('R') {
		return
	}
	for _, e := range es {
		if isDir(e.fi) && e.name != "." && e.name != ".." {
			l.listDir(lsEntry{name: dir.name + "/" + e.name, path: e.path, fi: e.fi}, true)
		}
	}
}
