package android

import (
	"fmt"
	"strconv"
	"strings"
)

// cmdPrintf is toybox printf (toys/posix/printf.c); mksh on Android has
// no printf builtin, so this is what scripts run. The format is reused
// until the arguments are consumed; a number that does not parse prints
// as far as it got and reports "printf: bad %d ARG" (status 1); an
// unknown conversion is "printf: bad %C@POS".
func cmdPrintf(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{min: 1, max: -1, stopEarly: true})
	if !ok {
		return st
	}
	format, args := a.args[0], a.args[1:]
	var out strings.Builder
	status := 0
	defer func() { c.printf("%s", out.String()) }()
	for {
		seen := false
		f := format
		for i := 0; i < len(f); {
			switch {
			case f[i] == '\\':
				r, n, stop := printfEscape(f[i+1:], false)
				if stop {
					return status
				}
				out.WriteString(r)
				i += 1 + n
			case f[i] != '%' || i+1 < len(f) && f[i+1] == '%':
				out.WriteByte(f[i])
				if f[i] == '%' {
					i++
				}
				i++
			default:
				j := i + 1
				for j < len(f) && strings.IndexByte("-+# '0", f[j]) >= 0 {
					j++
				}
				flags := strings.ReplaceAll(f[i+1:j], "'", "")
				width, prec := "", ""
				if j < len(f) && f[j] == '*' {
					if len(args) > 0 {
						width, args = args[0], args[1:]
					}
					j++
				} else {
					k := j
					for j < len(f) && f[j] >= '0' && f[j] <= '9' {
						j++
					}
					width = f[k:j]
				}
				hasPrec := j < len(f) && f[j] == '.'
				if hasPrec {
					j++
					if j < len(f) && f[j] == '*' {
						if len(args) > 0 {
							prec, args = args[0], args[1:]
						}
						j++
					} else {
						k := j
						for j < len(f) && f[j] >= '0' && f[j] <= '9' {
							j++
						}
						prec = f[k:j]
					}
					if prec == "" {
						prec = "0"
					}
				}
				conv := byte(0)
				if j < len(f) {
					conv = f[j]
					j++
				}
				seen = true
				arg := ""
				if len(args) > 0 {
					arg, args = args[0], args[1:]
				}
				spec := "%" + flags + width
				if hasPrec {
					spec += "." + prec
				}
				switch {
				case conv == 'b':
					for k := 0; k < len(arg); {
						if arg[k] != '\\' {
							out.WriteByte(arg[k])
							k++
							continue
						}
						r, n, stop := printfEscape(arg[k+1:], true)
						if stop {
							return status
						}
						out.WriteString(r)
						k += 1 + n
					}
				case conv == 'c':
					ch := byte(0)
					if arg != "" {
						ch = arg[0]
					}
					out.WriteString(fmt.Sprintf(spec+"c", rune(ch)))
				case conv == 's':
					out.WriteString(fmt.Sprintf(spec+"s", arg))
				case conv != 0 && strings.IndexByte("diouxX", conv) >= 0:
					v, bad := printfInt(arg)
					verb := string(conv)
					if conv == 'i' || conv == 'u' {
						verb = "d"
					}
					if conv == 'u' && v < 0 {
						out.WriteString(fmt.Sprintf(spec+"d", uint64(v)))
					} else {
						out.WriteString(fmt.Sprintf(spec+verb, v))
					}
					if bad {
						c.toyErr("bad %%%c %s", conv, arg)
						status = 1
					}
				case conv != 0 && strings.IndexByte("feEgG", conv) >= 0:
					v, err := strconv.ParseFloat(strings.TrimSpace(arg), 64)
					if arg == "" {
						err = nil
					}
					out.WriteString(fmt.Sprintf(spec+string(conv), v))
					if err != nil {
						c.toyErr("bad %%%c %s", conv, arg)
						status = 1
					}
				default:
					c.printf("%s", out.String())
					out.Reset()
					c.toyErr("bad %%%c@%d", conv, j) // f has passed the conversion
					return 1
				}
				i = j
			}
		}
		if !seen || len(args) == 0 {
			return status
		}
	}
}

// printfInt parses a printf integer argument as strtoll(s, &end, 0) does,
// with 'c / "c giving the character's code; bad reports trailing junk.
func printfInt(s string) (v int64, bad bool) {
	if len(s) > 1 && (s[0] == '\'' || s[0] == '"') {
		return int64(s[1]), false
	}
	t := strings.TrimLeft(s, " \t\n")
	end := 0
	if end < len(t) && (t[end] == '-' || t[end] == '+') {
		end++
	}
	base := 10
	switch {
	case strings.HasPrefix(t[end:], "0x") || strings.HasPrefix(t[end:], "0X"):
		base = 16
		end += 2
	case strings.HasPrefix(t[end:], "0"):
		base = 8
	}
	start := end
	for end < len(t) && strings.IndexByte("0123456789abcdef"[:base], lower(t[end])) >= 0 {
		end++
	}
	n, _ := strconv.ParseInt(t[start:end], base, 64)
	if start > 0 && t[0] == '-' {
		n = -n
	}
	return n, s != "" && end != len(t)
}

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// printfEscape decodes the escape after a backslash as printf.c's
// handle_slash: \c stops output, \xHH (1-2 digits), \NNN octal (1-3
// digits; %b allows a leading 0 more), the letters of unescape() in
// lib/lib.c; anything else is a literal backslash. It returns the bytes,
// how many input bytes it used, and whether output stops.
func printfEscape(s string, posix bool) (string, int, bool) {
	if s == "" {
		return `\`, 0, false
	}
	if s[0] == 'c' {
		return "", 1, true
	}
	used, base := 0, 0
	if s[0] == 'x' {
		base, used = 16, 1
	} else {
		if posix && s[0] == '0' {
			used = 1
		}
		if used < len(s) && s[used] >= '0' && s[used] <= '7' {
			base = 8
		}
	}
	if base == 0 {
		if i := strings.IndexByte(`\abefnrtv`, s[0]); i >= 0 {
			return string("\\\a\b\x1b\f\n\r\t\v"[i]), 1, false
		}
		return `\`, 0, false
	}
	maxDigits := 3
	if base == 16 {
		maxDigits = 2
	}
	val, digits := 0, 0
	for used < len(s) && digits < maxDigits {
		d := strings.IndexByte("0123456789abcdef"[:base], lower(s[used]))
		if d < 0 {
			break
		}
		val = val*base + d
		used++
		digits++
	}
	return string([]byte{byte(val)}), used, false
}

// cmdEcho is mksh's echo builtin (c_print in mksh's funcs.c), what a
// plain `echo` runs on a phone: backslash escapes are always interpreted
// (-e is a no-op, -E turns them off), \c ends the output, -n drops the
// newline.
func cmdEcho(c *cmdCtx) int {
	args := c.args[1:]
	nl, esc := true, true
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, r := range args[0][1:] {
			switch r {
			case 'n':
				nl = false
			case 'e':
				esc = true
			case 'E':
				esc = false
			}
		}
		args = args[1:]
	}
	return c.echo(strings.Join(args, " "), esc, nl)
}

// echo writes s, decoding backslash escapes when esc (\c ends the
// output, newline included), with a newline when nl.
func (c *cmdCtx) echo(s string, esc, nl bool) int {
	if esc {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] != '\\' || i+1 == len(s) {
				b.WriteByte(s[i])
				continue
			}
			r, n, stop := printfEscape(s[i+1:], true)
			if stop {
				c.printf("%s", b.String())
				return 0
			}
			b.WriteString(r)
			i += n
		}
		s = b.String()
	}
	if nl {
		s += "\n"
	}
	c.printf("%s", s)
	return 0
}

// cmdTr is toybox tr (toys/pending/tr.c): maps SET1's characters to
// SET2's (the last one repeating), -d deletes SET1, -s squeezes runs of
// the result's SET (SET2, or SET1 alone), -c complements SET1. Sets take
// ranges a-z, classes [:alpha:] and backslash escapes.
func cmdTr(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{opts: "Ccsd", min: 1, max: 2, stopEarly: true})
	if !ok {
		return st
	}
	set1 := expandSet(a.args[0])
	if a.has('c') || a.has('C') {
		in := map[byte]bool{}
		for _, b := range set1 {
			in[b] = true
		}
		set1 = set1[:0]
		for b := 0; b < 256; b++ {
			if !in[byte(b)] {
				set1 = append(set1, byte(b))
			}
		}
	}
	var set2 []byte
	if len(a.args) > 1 {
		if a.args[1] == "" {
			c.toyErr("set2 can't be empty string")
			return 1
		}
		set2 = expandSet(a.args[1])
	}
	var mapping [256]int
	for i := range mapping {
		mapping[i] = i
	}
	var del, squeeze [256]bool
	switch {
	case a.has('d'):
		for _, b := range set1 {
			del[b] = true
		}
		for _, b := range set2 {
			squeeze[b] = true
		}
	case set2 != nil:
		for i, b := range set1 {
			mapping[b] = int(set2[min(i, len(set2)-1)])
		}
		for _, b := range set2 {
			squeeze[b] = true
		}
	default:
		for _, b := range set1 {
			squeeze[b] = true
		}
	}
	data, _ := readAllLimited(c)
	out := make([]byte, 0, len(data))
	last := -1
	for _, b := range data {
		if del[b] {
			continue
		}
		m := byte(mapping[b])
		if a.has('s') && squeeze[m] && int(m) == last {
			continue
		}
		out = append(out, m)
		last = int(m)
	}
	c.stdout.Write(out)
	return 0
}

func readAllLimited(c *cmdCtx) ([]byte, error) {
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for b.Len() < maxInput {
		n, err := c.stdin.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return []byte(b.String()), nil
}

// trClasses are the [:class:] names tr's expand_set knows.
var trClasses = map[string]func(b byte) bool{
	"alpha":  func(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' },
	"alnum":  func(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' },
	"digit":  func(b byte) bool { return b >= '0' && b <= '9' },
	"lower":  func(b byte) bool { return b >= 'a' && b <= 'z' },
	"upper":  func(b byte) bool { return b >= 'A' && b <= 'Z' },
	"space":  func(b byte) bool { return strings.IndexByte(" \t\n\r\f\v", b) >= 0 },
	"blank":  func(b byte) bool { return b == ' ' || b == '\t' },
	"punct":  func(b byte) bool { return b > 32 && b < 127 && !trClassAlnum(b) },
	"cntrl":  func(b byte) bool { return b < 32 || b == 127 },
	"print":  func(b byte) bool { return b >= 32 && b < 127 },
	"graph":  func(b byte) bool { return b > 32 && b < 127 },
	"xdigit": func(b byte) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' },
}

func trClassAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// expandSet expands one tr set into its bytes.
func expandSet(s string) []byte {
	var raw []byte
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "[:") {
			if end := strings.Index(s[i+2:], ":]"); end >= 0 {
				if class, ok := trClasses[s[i+2:i+2+end]]; ok {
					for b := 0; b < 256; b++ {
						if class(byte(b)) {
							raw = append(raw, byte(b))
						}
					}
					i += end + 3
					continue
				}
			}
		}
		ch := s[i]
		if ch == '\\' && i+1 < len(s) {
			r, n, _ := printfEscape(s[i+1:], false)
			if n == 0 {
				r, n = s[i+1:i+2], 1
			}
			ch = r[0]
			i += n
		}
		if i+2 < len(s) && s[i+1] == '-' {
			hi := s[i+2]
			for b := int(ch); b <= int(hi); b++ {
				raw = append(raw, byte(b))
			}
			i += 2
			continue
		}
		raw = append(raw, ch)
	}
	return raw
}
