package shell

import (
	"fmt"
	"strconv"
	"strings"
)

// Printf is toybox printf (toys/posix/printf.c); mksh on Android has
// no printf builtin, so this is what scripts run. The format is reused
// until the arguments are consumed; a number that does not parse prints
// as far as it got and reports "printf: bad %d ARG" (status 1); an
// unknown conversion is "printf: bad %C@POS".
func Printf(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Min: 1, Max: -1, StopEarly: true, PassUnknown: true})
	if !ok {
		return st
	}
	format, args := a.Operands[0], a.Operands[1:]
	var out strings.Builder
	status := 0
	defer func() { c.Printf("%s", out.String()) }()
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
						c.ToyErr("bad %%%c %s", conv, arg)
						status = 1
					}
				case conv != 0 && strings.IndexByte("feEgG", conv) >= 0:
					v, err := strconv.ParseFloat(strings.TrimSpace(arg), 64)
					if arg == "" {
						err = nil
					}
					out.WriteString(fmt.Sprintf(spec+string(conv), v))
					if err != nil {
						c.ToyErr("bad %%%c %s", conv, arg)
						status = 1
					}
				default:
					c.Printf("%s", out.String())
					out.Reset()
					c.ToyErr("bad %%%c@%d", conv, j) // f has passed the conversion
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

// Echo is mksh's echo builtin (c_print in mksh's funcs.c), what a
// plain `echo` runs on a phone: backslash escapes are always interpreted
// (-e is a no-op, -E turns them off), \c ends the output, -n drops the
// newline.
func Echo(c *Ctx) int { return EchoFlags(c, true) }

// echoFlags reads echo's -n, -e and -E (escapes on by default when esc)
// up to the first word that is not one, then echoes the rest.
func EchoFlags(c *Ctx, esc bool) int {
	args := c.Args[1:]
	nl := true
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
func (c *Ctx) echo(s string, esc, nl bool) int {
	if esc {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] != '\\' || i+1 == len(s) {
				b.WriteByte(s[i])
				continue
			}
			r, n, stop := printfEscape(s[i+1:], true)
			if stop {
				c.Printf("%s", b.String())
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
	c.Printf("%s", s)
	return 0
}
