package android

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
func (c *cmdCtx) loopFiles(files []string) (ins []input, ok bool) {
	if len(files) == 0 {
		files = []string{"-"}
	}
	ok = true
	for _, f := range files {
		if f == "-" {
			b, _ := io.ReadAll(io.LimitReader(c.stdin, maxInput))
			ins = append(ins, input{name: f, data: b})
			continue
		}
		b, err := c.d.fs.ReadFile(c.abs(f))
		if err != nil {
			c.toyPerror(err, "%s", f)
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

// cmdGrep is toybox grep (toys/posix/grep.c): basic regular expressions
// unless -E (or -F fixed strings); -c -l -L -q -s -n -H -h -o -v -i -w -x
// -m, -r/-R through directories, context -A -B -C (context lines use "-" where matches use ":",
// "--" separates groups); several files prefix matches with "FILE:"; status 0 on a match, 1
// on none, 2 on an error (TOYFLAG_ARGFAIL(2), toys.exitval = 2 until a
// file was searched).
func cmdGrep(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{
		opts: "S:M:\x03:ZzEFHIabhinorRsvwcLlqe:f:C#B#A#m#x",
		long: map[string]rune{"count": 'c', "files-without-match": 'L', "files-with-matches": 'l', "quiet": 'q', "silent": 'q',
			"no-filename": 'h', "only-matching": 'o', "byte-offset": 'b', "color": 0x1, "line-buffered": 0x2,
			"exclude": 'S', "include": 'M', "exclude-dir": 0x3},
		max: -1, argfail: 2,
	})
	if !ok {
		return st
	}
	files := a.args
	pats := a.vals['e']
	for _, f := range a.vals['f'] {
		b, err := c.d.fs.ReadFile(c.abs(f))
		if err != nil {
			c.toyPerror(err, "%s", f)
			return 2
		}
		pats = append(pats, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	if len(pats) == 0 {
		if len(files) == 0 {
			c.toyErr("no REGEX")
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
		case a.has('F'):
			expr = regexp.QuoteMeta(p)
		case !a.has('E'):
			expr = breToERE(p)
		}
		if a.has('w') {
			expr = `(?:^|\b)(?:` + expr + `)(?:\b|$)`
		}
		if a.has('x') {
			expr = `^(?:` + expr + `)$`
		}
		if a.has('i') {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			c.toyErr("bad regex '%s'", p)
			return 2
		}
		res = append(res, re)
	}
	showName := a.has('H') || (len(files) > 1 && !a.has('h'))
	ctxA, _ := strconv.Atoi(a.val('A'))
	ctxB, _ := strconv.Atoi(a.val('B'))
	if around, _ := strconv.Atoi(a.val('C')); around > 0 {
		ctxA, ctxB = max(ctxA, around), max(ctxB, around)
	}
	maxCount := -1
	if a.has('m') {
		maxCount, _ = strconv.Atoi(a.val('m'))
	}
	stderr := c.stderr
	if a.has('s') {
		c.stderr = io.Discard
	}
	if a.has('r') || a.has('R') {
		if len(files) == 0 {
			files = []string{"."}
		}
		walked := c.walkFiles(files, a.vals[0x3], a.vals['S'], a.vals['M'])
		// "grep -r onefile" shows no name, files found in a directory do.
		showName = showName || !slices.Equal(walked, files) && !a.has('h')
		files = walked
	}
	ins, readAll := c.loopFiles(files)
	c.stderr = stderr
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
			if a.has('n') {
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
				if a.has('o') {
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
			if (len(hits) > 0) == a.has('v') {
				discard := after > 0 || ctxB > 0
				if after > 0 {
					after--
					if after > 0 {
						c.printf("%s%s\n", prefix(i+1, "-"), l)
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
			if a.has('q') {
				return 0
			}
			if a.has('c') || a.has('l') || a.has('L') {
				continue
			}
			if bars {
				c.printf("--\n")
				bars = false
			}
			for j, b := range before {
				c.printf("%s%s\n", prefix(beforeAt+j, "-"), b)
			}
			before = before[:0]
			if a.has('o') && !a.has('v') {
				for _, h := range hits {
					c.printf("%s%s\n", prefix(i+1, ":"), h)
				}
			} else {
				c.printf("%s%s\n", prefix(i+1, ":"), l)
			}
			if ctxA > 0 {
				after = ctxA + 1
			}
		}
		switch {
		case a.has('l') && n > 0:
			c.printf("%s\n", name)
		case a.has('L') && n == 0:
			c.printf("%s\n", name)
		case a.has('c') && !a.has('l') && !a.has('L'):
			if showName {
				c.printf("%s:", name)
			}
			c.printf("%d\n", n)
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
func (c *cmdCtx) walkFiles(names, excludeDirs, exclude, include []string) []string {
	matches := func(globs []string, name string) bool {
		return slices.ContainsFunc(globs, func(g string) bool { ok, _ := path.Match(g, name); return ok })
	}
	var out []string
	for _, n := range names {
		fi, err := c.d.fs.Stat(c.abs(n))
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
		ents, _ := c.d.fs.ReadDir(c.abs(n))
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

// cmdHead is toybox head (toys/posix/head.c): -n lines (default 10), -c
// bytes, the old "-N" form; several files get "==> FILE <==" headers
// separated by a blank line (-q none, -v always).
func cmdHead(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{opts: "n#c#qv", long: map[string]rune{"lines": 'n', "bytes": 'c'}, max: -1, passUnknown: true})
	if !ok {
		return st
	}
	n, _ := strconv.ParseInt(a.val('n'), 10, 64)
	if !a.has('n') {
		n = 10
	}
	files := a.args
	if len(files) > 0 && len(files[0]) > 1 && files[0][0] == '-' && isNumber(files[0][1:]) {
		n, _ = strconv.ParseInt(files[0][1:], 10, 64)
		files = files[1:]
	}
	bytesMode := a.has('c')
	nbytes, _ := atolx(a.val('c'))
	ins, ok := c.loopFiles(files)
	for i, in := range ins {
		if (len(files) > 1 && !a.has('q')) || a.has('v') {
			if i > 0 {
				c.printf("\n")
			}
			c.printf("==> %s <==\n", displayName(in.name))
		}
		if bytesMode {
			c.stdout.Write(in.data[:min(int64(len(in.data)), nbytes)])
			continue
		}
		ls := splitLines(in.data)
		for _, l := range ls[:min(int64(len(ls)), n)] {
			c.stdout.Write(l)
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

// cmdTail is toybox tail (toys/posix/tail.c): -n N the last N lines, -n +N
// from line N, -c likewise for bytes, the old "-N"/"+N" form, headers as
// head; -f waits (nothing more ever arrives) until the stream closes.
func cmdTail(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{opts: "fFs:c:n:", long: map[string]rune{"lines": 'n', "bytes": 'c'}, max: -1, passUnknown: true})
	if !ok {
		return st
	}
	files := a.args
	spec, bytesMode := "10", false
	switch {
	case a.has('n'):
		spec = a.val('n')
	case a.has('c'):
		spec, bytesMode = a.val('c'), true
	case len(files) > 0 && len(files[0]) > 1 && (files[0][0] == '-' || files[0][0] == '+'):
		spec, files = files[0], files[1:]
		if spec[0] == '-' {
			spec = spec[1:]
		}
	}
	fromStart := strings.HasPrefix(spec, "+")
	n, err := atolx(strings.TrimLeft(spec, "+-"))
	if err != nil {
		c.toyErr("%v", err)
		return 1
	}
	ins, ok := c.loopFiles(files)
	for i, in := range ins {
		if len(files) > 1 {
			if i > 0 {
				c.printf("\n")
			}
			c.printf("==> %s <==\n", displayName(in.name))
		}
		if bytesMode {
			if fromStart {
				c.stdout.Write(in.data[min(max(n-1, 0), int64(len(in.data))):])
			} else {
				c.stdout.Write(in.data[max(int64(len(in.data))-n, 0):])
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
			c.stdout.Write(l)
		}
	}
	if a.has('f') || a.has('F') {
		<-c.ctx.Done()
		return exitCanceled
	}
	if !ok {
		return 1
	}
	return 0
}

// cmdWc is toybox wc (toys/posix/wc.c, show_lengths): lines, words and
// bytes (-l -w -c, -m characters) in that order; one count of one input
// is printed bare, otherwise each count in a 7-wide column; files add
// their name, several a "total" line.
func cmdWc(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{opts: "mcwl", max: -1})
	if !ok {
		return st
	}
	order := []rune{'l', 'w', 'c', 'm'}
	var want []rune
	for _, r := range order {
		if a.has(r) {
			want = append(want, r)
		}
	}
	if len(want) == 0 {
		want = []rune{'l', 'w', 'c'}
	}
	space := 7
	if (len(a.args) == 0 && len(want) == 1) || len(a.args) == 1 {
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
		if len(a.args) > 0 {
			b.WriteString(" " + name)
		}
		c.printf("%s\n", b.String())
	}
	ins, ok := c.loopFiles(a.args)
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
	if len(a.args) > 1 {
		show(totals, "total")
	}
	if !ok {
		return 1
	}
	return 0
}
