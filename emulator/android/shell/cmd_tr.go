package shell

import "strings"

// Tr is toybox tr (toys/pending/tr.c): maps SET1's characters to
// SET2's (the last one repeating), -d deletes SET1, -s squeezes runs of
// the result's SET (SET2, or SET1 alone), -c complements SET1. Sets take
// ranges a-z, classes [:alpha:] and backslash escapes.
func Tr(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "Ccsd", Min: 1, Max: 2, StopEarly: true})
	if !ok {
		return st
	}
	set1 := expandSet(a.Operands[0])
	if a.Has('c') || a.Has('C') {
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
	if len(a.Operands) > 1 {
		if a.Operands[1] == "" {
			c.ToyErr("set2 can't be empty string")
			return 1
		}
		set2 = expandSet(a.Operands[1])
	}
	var mapping [256]int
	for i := range mapping {
		mapping[i] = i
	}
	var del, squeeze [256]bool
	switch {
	case a.Has('d'):
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
	ins, _ := c.loopFiles(nil) // stdin
	data := ins[0].data
	out := make([]byte, 0, len(data))
	last := -1
	for _, b := range data {
		if del[b] {
			continue
		}
		m := byte(mapping[b])
		if a.Has('s') && squeeze[m] && int(m) == last {
			continue
		}
		out = append(out, m)
		last = int(m)
	}
	c.Stdout.Write(out)
	return 0
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
