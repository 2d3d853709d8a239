package android

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// readInputs returns the named files' contents, or stdin when none.
func (c *cmdCtx) readInputs(tool string, files []string) ([]byte, int) {
	if len(files) == 0 {
		b, _ := io.ReadAll(io.LimitReader(c.stdin, 64<<20))
		return b, 0
	}
	var out []byte
	status := 0
	for _, f := range files {
		b, err := c.d.fs.ReadFile(c.abs(f))
		if err != nil {
			c.errorf("%s: %s: %s\n", tool, f, errText(err))
			status = 2
			continue
		}
		out = append(out, b...)
	}
	return out, status
}

func lines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// cmdGrep is a subset of toybox grep: -c -v -i -q -o -E -F -e PATTERN.
func cmdGrep(c *cmdCtx) int {
	var count, invert, icase, quiet, only, fixed bool
	var pats, files []string
	args := c.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-e" && i+1 < len(args) {
			i++
			pats = append(pats, args[i])
			continue
		}
		if len(a) > 1 && a[0] == '-' && len(files) == 0 {
			for _, r := range a[1:] {
				switch r {
				case 'c':
					count = true
				case 'v':
					invert = true
				case 'i':
					icase = true
				case 'q':
					quiet = true
				case 'o':
					only = true
				case 'F':
					fixed = true
				case 'E':
				}
			}
			continue
		}
		if len(pats) == 0 {
			pats = append(pats, a)
		} else {
			files = append(files, a)
		}
	}
	if len(pats) == 0 {
		c.errorf("grep: no pattern (see \"grep --help\")\n")
		return 2
	}
	var res []*regexp.Regexp
	for _, p := range pats {
		if fixed {
			p = regexp.QuoteMeta(p)
		}
		if icase {
			p = "(?i)" + p
		}
		re, err := regexp.Compile(p)
		if err != nil {
			c.errorf("grep: bad regex '%s'\n", p)
			return 2
		}
		res = append(res, re)
	}
	data, status := c.readInputs("grep", files)
	n := 0
	for _, l := range lines(data) {
		var hits []string
		for _, re := range res {
			if only {
				hits = append(hits, re.FindAllString(l, -1)...)
			} else if re.MatchString(l) {
				hits = append(hits, l)
				break
			}
		}
		if (len(hits) > 0) == invert {
			continue
		}
		n++
		if quiet {
			return 0
		}
		if count {
			continue
		}
		if only && !invert {
			for _, h := range hits {
				c.printf("%s\n", h)
			}
		} else {
			c.printf("%s\n", l)
		}
	}
	if count {
		c.printf("%d\n", n)
	}
	if status != 0 {
		return status
	}
	if n == 0 {
		return 1
	}
	return 0
}

// headTail implements head and tail -n N (also -N).
func headTail(c *cmdCtx, tail bool) int {
	n := 10
	var files []string
	args := c.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-n" && i+1 < len(args):
			i++
			v, err := strconv.Atoi(strings.TrimPrefix(args[i], "+"))
			if err != nil {
				c.errorf("%s: bad -n '%s'\n", c.args[0], args[i])
				return 1
			}
			n = v
		case len(a) > 1 && a[0] == '-':
			v, err := strconv.Atoi(a[1:])
			if err == nil {
				n = v
			}
		default:
			files = append(files, a)
		}
	}
	data, status := c.readInputs(c.args[0], files)
	ls := lines(data)
	if tail {
		ls = ls[max(len(ls)-n, 0):]
	} else {
		ls = ls[:min(n, len(ls))]
	}
	for _, l := range ls {
		c.printf("%s\n", l)
	}
	return status
}

// cmdWc is `wc -l|-c|-w` (one count, as scripts use it).
func cmdWc(c *cmdCtx) int {
	mode := "l"
	var files []string
	for _, a := range c.args[1:] {
		if strings.HasPrefix(a, "-") {
			mode = a[1:]
		} else {
			files = append(files, a)
		}
	}
	data, status := c.readInputs("wc", files)
	switch mode {
	case "c":
		c.printf("%d\n", len(data))
	case "w":
		c.printf("%d\n", len(strings.Fields(string(data))))
	default:
		c.printf("%d\n", strings.Count(string(data), "\n"))
	}
	return status
}
