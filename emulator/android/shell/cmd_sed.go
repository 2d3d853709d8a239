package shell

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Sed is toybox sed (toys/posix/sed.c) for the scripts tools send:
// -n, -e (several), -E/-r, -i[SUFFIX] (in place, the original kept as
// FILE+SUFFIX), -s; addresses N, $, /RE/ and \cREc, ranges
// A1,A2 and A1,+N, negation with !; commands p d q Q = s y a i c n N h H
// g G x { }. Inputs form one stream (per file with -i/-s). A script it
// cannot parse is "sed: bad pattern 'COMMAND'@POS (CHAR)", as
// parse_pattern reports it.
func Sed(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "e:f:inErsz", Attached: "i", Long: map[string]rune{"null-data": 'z', "version": 0x1, "help": 0x2, "tarxform": 0x3}, Max: -1})
	if !ok {
		return st
	}
	if a.Has(0x1) {
		// sed_main: "Lie to autoconf when it asks stupid questions".
		c.Printf("This is not GNU sed version 9.0\n")
		return 0
	}
	ere := a.Has('E') || a.Has('r')
	scripts := a.Vals['e']
	for _, f := range a.Vals['f'] {
		b, err := c.Phone.FS().ReadFile(c.Abs(f))
		if err != nil {
			c.ToyPerror(err, "%s", f)
			return 1
		}
		scripts = append(scripts, string(b))
	}
	files := a.Operands
	if len(scripts) == 0 {
		if len(files) == 0 {
			c.ToyErr("no pattern")
			return 1
		}
		scripts, files = files[:1], files[1:]
	}
	var prog []*sedCmd
	for _, s := range scripts {
		cmds, err := parseSed(s, ere)
		if err != "" {
			c.ToyErr("%s", err)
			return 1
		}
		prog = append(prog, cmds...)
	}
	if depth := sedDepth(prog); depth != 0 {
		c.ToyErr("no }")
		return 1
	}
	inPlace := a.Has('i')
	ins, ok := c.loopFiles(files)
	run := func(data []byte) []byte {
		var out bytes.Buffer
		e := &sedRun{prog: prog, quiet: a.Has('n'), out: &out}
		e.run(splitLines(data))
		return out.Bytes()
	}
	if inPlace || a.Has('s') {
		for _, in := range ins {
			res := run(in.data)
			if inPlace && in.name != "-" {
				fi, _ := c.Phone.FS().Stat(c.Abs(in.name))
				if suffix := a.Val('i'); suffix != "" {
					c.Phone.FS().WriteFile(c.Abs(in.name+suffix), in.data, fi.Mode&0o7777, fi.ModTime)
				}
				c.Phone.FS().WriteFile(c.Abs(in.name), res, fi.Mode&0o7777, c.Phone.Now())
				continue
			}
			c.Stdout.Write(res)
		}
	} else {
		var all []byte
		for _, in := range ins {
			all = append(all, in.data...)
		}
		c.Stdout.Write(run(all))
	}
	if !ok {
		return 1
	}
	return 0
}

type sedAddr struct {
	line int            // > 0: that line; -1: last line; 0: none
	re   *regexp.Regexp // regex address
	plus int            // A1,+N: N more lines
}

type sedCmd struct {
	addr   [2]sedAddr
	naddr  int
	negate bool
	cmd    byte
	// s
	re     *regexp.Regexp
	repl   string
	global bool
	nth    int
	print  bool
	// y
	from, to []rune
	// a i c
	text string
	// q Q
	exit int
	// { } pairing
	jump int
	// range state
	active bool
	endAt  int
}

// parseSed parses one script; on error it returns the message.
func parseSed(s string, ere bool) ([]*sedCmd, string) {
	var cmds []*sedCmd
	i := 0
	// bad is parse_pattern's error: the command from its start, and the
	// position and character where parsing stopped (NUL at the end).
	bad := func(start, at int) string {
		ch := "\x00"
		if at < len(s) {
			ch = s[at : at+1]
		}
		return "bad pattern '" + s[start:] + "'@" + strconv.Itoa(at-start+1) + " (" + ch + ")"
	}
	compile := func(p string, icase bool) (*regexp.Regexp, bool) {
		if !ere {
			p = breToERE(p)
		}
		if icase {
			p = "(?i)" + p
		}
		re, err := regexp.Compile(p)
		return re, err == nil
	}
	for {
		for i < len(s) && (strings.IndexByte(" \t\n;", s[i]) >= 0) {
			i++
		}
		if i < len(s) && s[i] == '#' {
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		}
		if i >= len(s) {
			break
		}
		start := i
		cmd := &sedCmd{}
		for n := 0; n < 2; n++ {
			if n == 1 {
				if i >= len(s) || s[i] != ',' {
					break
				}
				i++
			}
			ad := &cmd.addr[n]
			switch {
			case n == 1 && i+1 < len(s) && s[i] == '+' && IsDigit(s[i+1]):
				j := i + 1
				for j < len(s) && IsDigit(s[j]) {
					j++
				}
				ad.plus, _ = strconv.Atoi(s[i+1 : j])
				ad.plus++
				i = j
			case i < len(s) && IsDigit(s[i]):
				j := i
				for j < len(s) && IsDigit(s[j]) {
					j++
				}
				ad.line, _ = strconv.Atoi(s[i:j])
				i = j
			case i < len(s) && s[i] == '$':
				ad.line = -1
				i++
			case i < len(s) && (s[i] == '/' || s[i] == '\\'):
				if s[i] == '\\' {
					i++
				}
				if i >= len(s) {
					return nil, bad(start, i)
				}
				p, next, ok := sedDelimited(s, i)
				if !ok {
					return nil, bad(start, i)
				}
				i = next
				icase := i < len(s) && s[i] == 'I'
				if icase {
					i++
				}
				re, ok := compile(p, icase)
				if !ok {
					return nil, "bad regex '" + p + "'"
				}
				ad.re = re
			default:
				if n == 1 {
					return nil, bad(start, i)
				}
				n = 2
				continue
			}
			cmd.naddr = n + 1
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i < len(s) && s[i] == '!' {
			cmd.negate = true
			i++
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
		}
		if i >= len(s) {
			return nil, bad(start, i)
		}
		cmd.cmd = s[i]
		i++
		switch cmd.cmd {
		case 'p', 'd', '=', 'n', 'N', 'h', 'H', 'g', 'G', 'x', '{', '}', 'D', 'P':
		case 'q', 'Q':
			for i < len(s) && s[i] == ' ' {
				i++
			}
			j := i
			for j < len(s) && IsDigit(s[j]) {
				j++
			}
			cmd.exit, _ = strconv.Atoi(s[i:j])
			i = j
		case 'a', 'i', 'c':
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			if i < len(s) && s[i] == '\\' {
				i++
				if i < len(s) && s[i] == '\n' {
					i++
				}
			}
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				j = len(s) - i
			}
			cmd.text = s[i : i+j]
			i += j
		case 's':
			if i >= len(s) {
				return nil, bad(start, i)
			}
			p, next, ok := sedDelimited(s, i)
			if !ok {
				return nil, bad(start, i)
			}
			repl, next2, ok := sedDelimited(s, next-1)
			if !ok {
				return nil, bad(start, len(s))
			}
			i = next2
			cmd.repl = repl
			icase := false
			for i < len(s) && strings.IndexByte("gpiI0123456789", s[i]) >= 0 {
				switch ch := s[i]; {
				case ch == 'g':
					cmd.global = true
				case ch == 'p':
					cmd.print = true
				case ch == 'i' || ch == 'I':
					icase = true
				default:
					cmd.nth = cmd.nth*10 + int(ch-'0')
				}
				i++
			}
			re, ok := compile(p, icase)
			if !ok {
				return nil, "bad regex '" + p + "'"
			}
			cmd.re = re
		case 'y':
			from, next, ok := sedDelimited(s, i)
			if !ok {
				return nil, bad(start, i)
			}
			to, next2, ok := sedDelimited(s, next-1)
			if !ok || len([]rune(from)) != len([]rune(to)) {
				return nil, bad(start, next2-1)
			}
			cmd.from, cmd.to, i = []rune(from), []rune(to), next2
		default:
			return nil, bad(start, i)
		}
		cmds = append(cmds, cmd)
	}
	return cmds, ""
}

func IsDigit(b byte) bool { return b >= '0' && b <= '9' }

// sedDelimited reads a delimited string starting at s[i] (the delimiter),
// unescaping an escaped delimiter and "\n"; it returns the string and the
// index after the closing delimiter.
func sedDelimited(s string, i int) (string, int, bool) {
	delim := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == delim:
			return b.String(), j + 1, true
		case s[j] == '\\' && j+1 < len(s):
			j++
			switch s[j] {
			case delim:
				b.WriteByte(delim)
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte('\\')
				b.WriteByte(s[j])
			}
		default:
			b.WriteByte(s[j])
		}
	}
	return "", len(s), false
}

// sedDepth pairs { with } and reports the unclosed depth.
func sedDepth(prog []*sedCmd) int {
	var stack []int
	for i, c := range prog {
		switch c.cmd {
		case '{':
			stack = append(stack, i)
		case '}':
			if len(stack) == 0 {
				return -1
			}
			prog[stack[len(stack)-1]].jump = i
			stack = stack[:len(stack)-1]
		}
	}
	return len(stack)
}

// sedRun executes a program over a stream of lines.
type sedRun struct {
	prog  []*sedCmd
	quiet bool
	out   *bytes.Buffer
	hold  string
}

func (e *sedRun) match(ad sedAddr, n int, last bool, line string) bool {
	switch {
	case ad.re != nil:
		return ad.re.MatchString(line)
	case ad.line == -1:
		return last
	}
	return ad.line == n
}

// selected reports whether cmd applies to line n (tracking ranges).
func (e *sedRun) selected(c *sedCmd, n int, last bool, line string) bool {
	var hit bool
	switch c.naddr {
	case 0:
		hit = true
	case 1:
		hit = e.match(c.addr[0], n, last, line)
	default:
		if c.active {
			hit = true
			end := c.addr[1]
			switch {
			case end.plus > 0:
				c.active = n < c.endAt
			case end.re != nil:
				c.active = !end.re.MatchString(line)
			case end.line == -1:
				c.active = !last
			default:
				c.active = n < end.line
			}
		} else if e.match(c.addr[0], n, last, line) {
			hit = true
			end := c.addr[1]
			switch {
			case end.plus > 0:
				c.endAt = n + end.plus - 1
				c.active = n < c.endAt
			case end.re != nil:
				c.active = true
			case end.line == -1:
				c.active = !last
			default:
				c.active = n < end.line
			}
		}
	}
	return hit != c.negate
}

func (e *sedRun) run(in [][]byte) {
	n := 0
	next := func() (string, bool, bool) {
		if n >= len(in) {
			return "", false, false
		}
		l := in[n]
		n++
		nl := bytes.HasSuffix(l, []byte("\n"))
		return strings.TrimSuffix(string(l), "\n"), nl, true
	}
	emit := func(s string, nl bool) {
		e.out.WriteString(s)
		if nl {
			e.out.WriteByte('\n')
		}
	}
	for {
		line, nl, ok := next()
		if !ok {
			return
		}
		var appendText []string
		deleted, quit, printQuit := false, false, true
	cmds:
		for pc := 0; pc < len(e.prog); pc++ {
			c := e.prog[pc]
			last := n == len(in)
			if c.cmd == '}' {
				continue
			}
			if !e.selected(c, n, last, line) {
				if c.cmd == '{' {
					pc = c.jump
				}
				continue
			}
			switch c.cmd {
			case 'p':
				emit(line, true)
			case 'P':
				first, _, _ := strings.Cut(line, "\n")
				emit(first, true)
			case 'd':
				deleted = true
				break cmds
			case 'D':
				if i := strings.IndexByte(line, '\n'); i >= 0 {
					in = append(in[:n:n], append([][]byte{[]byte(line[i+1:] + "\n")}, in[n:]...)...)
				}
				deleted = true
				break cmds
			case '=':
				e.out.WriteString(strconv.Itoa(n) + "\n")
			case 'q', 'Q':
				quit, printQuit = true, c.cmd == 'q'
				break cmds
			case 'a':
				appendText = append(appendText, c.text)
			case 'i':
				emit(c.text, true)
			case 'c':
				if c.naddr < 2 || !c.active {
					emit(c.text, true)
				}
				deleted = true
				break cmds
			case 'n':
				if !e.quiet {
					emit(line, nl)
				}
				l, nl2, ok := next()
				if !ok {
					deleted = true
					break cmds
				}
				line, nl = l, nl2
			case 'N':
				l, nl2, ok := next()
				if !ok {
					break cmds
				}
				line, nl = line+"\n"+l, nl2
			case 'h':
				e.hold = line
			case 'H':
				e.hold += "\n" + line
			case 'g':
				line = e.hold
			case 'G':
				line += "\n" + e.hold
			case 'x':
				line, e.hold = e.hold, line
			case 'y':
				m := map[rune]rune{}
				for i, r := range c.from {
					m[r] = c.to[i]
				}
				line = strings.Map(func(r rune) rune {
					if t, ok := m[r]; ok {
						return t
					}
					return r
				}, line)
			case 's':
				res, did := sedSubstitute(c, line)
				if did {
					line = res
					if c.print {
						emit(line, true)
					}
				}
			}
		}
		if !deleted && (!quit || printQuit) && !e.quiet {
			emit(line, nl)
		}
		for _, t := range appendText {
			emit(t, true)
		}
		if quit {
			return
		}
	}
}

// sedSubstitute applies an s command: the nth match (or all with g, or
// from the nth on with both), & and \1-\9 in the replacement.
func sedSubstitute(c *sedCmd, line string) (string, bool) {
	matches := c.re.FindAllStringSubmatchIndex(line, -1)
	if len(matches) == 0 {
		return line, false
	}
	nth := max(c.nth, 1)
	var b strings.Builder
	prev, did := 0, false
	for i, m := range matches {
		if i+1 < nth || (!c.global && i+1 > nth) {
			continue
		}
		b.WriteString(line[prev:m[0]])
		for j := 0; j < len(c.repl); j++ {
			ch := c.repl[j]
			switch {
			case ch == '&':
				b.WriteString(line[m[0]:m[1]])
			case ch == '\\' && j+1 < len(c.repl):
				j++
				d := c.repl[j]
				if IsDigit(d) {
					k := int(d - '0')
					if 2*k+1 < len(m) && m[2*k] >= 0 {
						b.WriteString(line[m[2*k]:m[2*k+1]])
					}
				} else {
					b.WriteByte(d)
				}
			default:
				b.WriteByte(ch)
			}
		}
		prev, did = m[1], true
	}
	b.WriteString(line[prev:])
	return b.String(), did
}
