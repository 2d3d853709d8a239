package shell

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// maxInput bounds what a text tool reads from one input.
const maxInput = 64 << 20

// input is one file a text tool reads (toybox's loopfiles): its name as
// given ("-" for stdin) and its content.
type input struct {
	name string
	data []byte
}

// loopFiles reads each operand, or stdin when there are none, as toybox's
// loopfiles does: an unreadable file is reported ("NAME: FILE: strerror")
// and skipped, and ok turns false.
func (c *Ctx) loopFiles(files []string) (ins []input, ok bool) {
	if len(files) == 0 {
		files = []string{"-"}
	}
	ok = true
	for _, f := range files {
		if f == "-" {
			b, _ := io.ReadAll(io.LimitReader(c.Stdin, maxInput))
			ins = append(ins, input{name: f, data: b})
			continue
		}
		b, err := c.Phone.FS().ReadFile(c.Abs(f))
		if err != nil {
			c.ToyPerror(err, "%s", f)
			ok = false
			continue
		}
		ins = append(ins, input{name: f, data: b})
	}
	return ins, ok
}

func lines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxInput)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// splitLines splits data after each '\n'; the last line may lack one.
func splitLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return append(out, data)
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

// Grep is toybox grep (toys/posix/grep.c): basic regular expressions
// unless -E (or -F fixed strings); -c -l -L -q -s -n -H -h -o -v -i -w -x
// -m, -r/-R through directories, context -A -B -C (context lines use "-" where matches use ":",
// "--" separates groups); several files prefix matches with "FILE:"; status 0 on a match, 1
// on none, 2 on an error (TOYFLAG_ARGFAIL(2), toys.exitval = 2 until a
// file was searched).
func Grep(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{
		Opts: "S:M:\x03:ZzEFHIabhinorRsvwcLlqe:f:C#B#A#m#x",
		Long: map[string]rune{"count": 'c', "files-without-match": 'L', "files-with-matches": 'l', "quiet": 'q', "silent": 'q',
			"no-filename": 'h', "only-matching": 'o', "byte-offset": 'b', "color": 0x1, "line-buffered": 0x2,
			"exclude": 'S', "include": 'M', "exclude-dir": 0x3},
		Max: -1, ArgFail: 2,
	})
	if !ok {
		return st
	}
	files := a.Operands
	pats := a.Vals['e']
	for _, f := range a.Vals['f'] {
		b, err := c.Phone.FS().ReadFile(c.Abs(f))
		if err != nil {
			c.ToyPerror(err, "%s", f)
			return 2
		}
		pats = append(pats, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	if len(pats) == 0 {
		if len(files) == 0 {
			c.ToyErr("no REGEX")
			return 2
		}
		pats, files = []string{files[0]}, files[1:]
	}
	var alts []string
	for _, p := range pats {
		alts = append(alts, strings.Split(p, "\n")...)
	}
	var res []*regexp.Regexp
	for _, p := range alts {
		expr := p
		switch {
		case a.Has('F'):
			expr = regexp.QuoteMeta(p)
		case !a.Has('E'):
			expr = breToERE(p)
		}
		if a.Has('w') {
			expr = `(?:^|\b)(?:` + expr + `)(?:\b|$)`
		}
		if a.Has('x') {
			expr = `^(?:` + expr + `)$`
		}
		if a.Has('i') {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			c.ToyErr("bad regex '%s'", p)
			return 2
		}
		res = append(res, re)
	}
	showName := a.Has('H') || (len(files) > 1 && !a.Has('h'))
	ctxA, _ := strconv.Atoi(a.Val('A'))
	ctxB, _ := strconv.Atoi(a.Val('B'))
	if around, _ := strconv.Atoi(a.Val('C')); around > 0 {
		ctxA, ctxB = max(ctxA, around), max(ctxB, around)
	}
	maxCount := -1
	if a.Has('m') {
		maxCount, _ = strconv.Atoi(a.Val('m'))
	}
	stderr := c.Stderr
	if a.Has('s') {
		c.Stderr = io.Discard
	}
	if a.Has('r') || a.Has('R') {
		if len(files) == 0 {
			files = []string{"."}
		}
		walked := c.walkFiles(files, a.Vals[0x3], a.Vals['S'], a.Vals['M'])
		// "grep -r onefile" shows no name, files found in a directory do.
		showName = showName || !slices.Equal(walked, files) && !a.Has('h')
		files = walked
	}
	ins, readAll := c.loopFiles(files)
	c.Stderr = stderr
	found := false
	for _, in := range ins {
		name := in.name
		if name == "-" {
			name = "(standard input)"
		}
		// Context (-A/-B/-C) as do_grep keeps it: "after" counts lines
		// still to show, before holds up to B unshown lines, and "--"
		// precedes the next output once a line was skipped after a match.
		n, after, bars := 0, 0, false
		var before []string
		beforeAt := 0 // line number of before[0]
		prefix := func(lineNo int, sep string) string {
			p := ""
			if showName {
				p = name + sep
			}
			if a.Has('n') {
				p += strconv.Itoa(lineNo) + sep
			}
			return p
		}
		for i, l := range lines(in.data) {
			if maxCount >= 0 && n >= maxCount {
				break
			}
			var hits []string
			for _, re := range res {
				if a.Has('o') {
					for _, h := range re.FindAllString(l, -1) {
						if h != "" {
							hits = append(hits, h)
						}
					}
				} else if re.MatchString(l) {
					hits = append(hits, l)
					break
				}
			}
			if (len(hits) > 0) == a.Has('v') {
				discard := after > 0 || ctxB > 0
				if after > 0 {
					after--
					if after > 0 {
						c.Printf("%s%s\n", prefix(i+1, "-"), l)
						discard = false
					}
				}
				if discard && ctxB > 0 {
					if len(before) == 0 {
						beforeAt = i + 1
					}
					before = append(before, l)
					if len(before) > ctxB {
						before = before[1:]
						beforeAt++
					} else {
						discard = false
					}
				}
				if discard && n > 0 {
					bars = true
				}
				continue
			}
			n++
			found = true
			if a.Has('q') {
				return 0
			}
			if a.Has('c') || a.Has('l') || a.Has('L') {
				continue
			}
			if bars {
				c.Printf("--\n")
				bars = false
			}
			for j, b := range before {
				c.Printf("%s%s\n", prefix(beforeAt+j, "-"), b)
			}
			before = before[:0]
			if a.Has('o') && !a.Has('v') {
				for _, h := range hits {
					c.Printf("%s%s\n", prefix(i+1, ":"), h)
				}
			} else {
				c.Printf("%s%s\n", prefix(i+1, ":"), l)
			}
			if ctxA > 0 {
				after = ctxA + 1
			}
		}
		switch {
		case a.Has('l') && n > 0:
			c.Printf("%s\n", name)
		case a.Has('L') && n == 0:
			c.Printf("%s\n", name)
		case a.Has('c') && !a.Has('l') && !a.Has('L'):
			if showName {
				c.Printf("%s:", name)
			}
			c.Printf("%d\n", n)
		}
	}
	if !readAll {
		return 2
	}
	if !found {
		return 1
	}
	return 0
}

// walkFiles expands directory operands into the files below them, as
// do_grep_r visits them (dirtree: depth first; here in name order),
// skipping directories matching --exclude-dir and files matching
// --exclude (-S) or, with --include (-M), matching none of those.
func (c *Ctx) walkFiles(names, excludeDirs, exclude, include []string) []string {
	matches := func(globs []string, name string) bool {
		return slices.ContainsFunc(globs, func(g string) bool { ok, _ := path.Match(g, name); return ok })
	}
	var out []string
	for _, n := range names {
		fi, err := c.Phone.FS().Stat(c.Abs(n))
		if err != nil || !isDir(fi) {
			base := path.Base(n)
			if !matches(exclude, base) && (len(include) == 0 || matches(include, base)) {
				out = append(out, n)
			}
			continue
		}
		if matches(excludeDirs, path.Base(n)) {
			continue
		}
		ents, _ := c.Phone.FS().ReadDir(c.Abs(n))
		for _, e := range ents {
			out = append(out, c.walkFiles([]string{strings.TrimSuffix(n, "/") + "/" + e.Name}, excludeDirs, exclude, include)...)
		}
	}
	return out
}

// breToERE rewrites a POSIX basic regular expression for Go's RE2 syntax:
// in a BRE, \( \) \{ \} \| \+ \? are operators and ( ) { } | + ? are
// literal characters.
func breToERE(p string) string {
	var b strings.Builder
	inBracket := false
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case inBracket:
			if ch == ']' {
				inBracket = false
			}
			b.WriteByte(ch)
		case ch == '[':
			inBracket = true
			b.WriteByte(ch)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case ch == '\\' && i+1 < len(p):
			i++
			if strings.IndexByte("(){}|+?", p[i]) >= 0 {
				b.WriteByte(p[i])
			} else {
				b.WriteByte('\\')
				b.WriteByte(p[i])
			}
		case strings.IndexByte("(){}|+?", ch) >= 0:
			b.WriteByte('\\')
			b.WriteByte(ch)
		case ch == '*' && (i == 0 || p[i-1] == '^' && i == 1):
			b.WriteString(`\*`) // a leading * is literal in a BRE
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// Head is toybox head (toys/posix/head.c): -n lines (default 10), -c
// bytes, the old "-N" form; several files get "==> FILE <==" headers
// separated by a blank line (-q none, -v always).
func Head(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "n#c#qv", Long: map[string]rune{"lines": 'n', "bytes": 'c'}, Max: -1, PassUnknown: true})
	if !ok {
		return st
	}
	n, _ := strconv.ParseInt(a.Val('n'), 10, 64)
	if !a.Has('n') {
		n = 10
	}
	files := a.Operands
	if len(files) > 0 && len(files[0]) > 1 && files[0][0] == '-' && isNumber(files[0][1:]) {
		n, _ = strconv.ParseInt(files[0][1:], 10, 64)
		files = files[1:]
	}
	bytesMode := a.Has('c')
	nbytes, _ := atolx(a.Val('c'))
	ins, ok := c.loopFiles(files)
	for i, in := range ins {
		if (len(files) > 1 && !a.Has('q')) || a.Has('v') {
			if i > 0 {
				c.Printf("\n")
			}
			c.Printf("==> %s <==\n", displayName(in.name))
		}
		if bytesMode {
			c.Stdout.Write(in.data[:min(int64(len(in.data)), nbytes)])
			continue
		}
		ls := splitLines(in.data)
		for _, l := range ls[:min(int64(len(ls)), n)] {
			c.Stdout.Write(l)
		}
	}
	if !ok {
		return 1
	}
	return 0
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// Tail is toybox tail (toys/posix/tail.c): -n N the last N lines, -n +N
// from line N, -c likewise for bytes, the old "-N"/"+N" form, headers as
// head; -f waits (nothing more ever arrives) until the stream closes.
func Tail(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "fFs:c:n:", Long: map[string]rune{"lines": 'n', "bytes": 'c'}, Max: -1, PassUnknown: true})
	if !ok {
		return st
	}
	files := a.Operands
	spec, bytesMode := "10", false
	switch {
	case a.Has('n'):
		spec = a.Val('n')
	case a.Has('c'):
		spec, bytesMode = a.Val('c'), true
	case len(files) > 0 && len(files[0]) > 1 && (files[0][0] == '-' || files[0][0] == '+'):
		spec, files = files[0], files[1:]
		if spec[0] == '-' {
			spec = spec[1:]
		}
	}
	fromStart := strings.HasPrefix(spec, "+")
	n, err := atolx(strings.TrimLeft(spec, "+-"))
	if err != nil {
		c.ToyErr("%v", err)
		return 1
	}
	ins, ok := c.loopFiles(files)
	for i, in := range ins {
		if len(files) > 1 {
			if i > 0 {
				c.Printf("\n")
			}
			c.Printf("==> %s <==\n", displayName(in.name))
		}
		if bytesMode {
			if fromStart {
				c.Stdout.Write(in.data[min(max(n-1, 0), int64(len(in.data))):])
			} else {
				c.Stdout.Write(in.data[max(int64(len(in.data))-n, 0):])
			}
			continue
		}
		ls := splitLines(in.data)
		if fromStart {
			ls = ls[min(max(n-1, 0), int64(len(ls))):]
		} else {
			ls = ls[max(int64(len(ls))-n, 0):]
		}
		for _, l := range ls {
			c.Stdout.Write(l)
		}
	}
	if a.Has('f') || a.Has('F') {
		<-c.Context.Done()
		return ExitCanceled
	}
	if !ok {
		return 1
	}
	return 0
}

// Wc is toybox wc (toys/posix/wc.c, show_lengths): lines, words and
// bytes (-l -w -c, -m characters) in that order; one count of one input
// is printed bare, otherwise each count in a 7-wide column; files add
// their name, several a "total" line.
func Wc(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "mcwl", Max: -1})
	if !ok {
		return st
	}
	order := []rune{'l', 'w', 'c', 'm'}
	var want []rune
	for _, r := range order {
		if a.Has(r) {
			want = append(want, r)
		}
	}
	if len(want) == 0 {
		want = []rune{'l', 'w', 'c'}
	}
	space := 7
	if (len(a.Operands) == 0 && len(want) == 1) || len(a.Operands) == 1 {
		space = 0
	}
	totals := map[rune]int{}
	show := func(counts map[rune]int, name string) {
		var b strings.Builder
		for i, r := range want {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%*d", space, counts[r])
		}
		if len(a.Operands) > 0 {
			b.WriteString(" " + name)
		}
		c.Printf("%s\n", b.String())
	}
	ins, ok := c.loopFiles(a.Operands)
	for _, in := range ins {
		counts := map[rune]int{
			'l': bytes.Count(in.data, []byte("\n")),
			'w': len(strings.Fields(string(in.data))),
			'c': len(in.data),
			'm': len([]rune(string(in.data))),
		}
		for r, v := range counts {
			totals[r] += v
		}
		show(counts, in.name)
	}
	if len(a.Operands) > 1 {
		show(totals, "total")
	}
	if !ok {
		return 1
	}
	return 0
}
