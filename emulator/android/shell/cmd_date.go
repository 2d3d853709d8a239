package shell

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Date is toybox date (toys/posix/date.c): the phone's time (zone
// persist.sys.timezone, Etc/UTC here) in the default format
// "%a %b %e %H:%M:%S %Z %Y", or +FORMAT with strftime conversions plus
// %N and %:z; -u, -d DATE, -r FILE, -I[dhmsn]. The shell user may not set
// the clock: "date: cannot set date: Operation not permitted" (status 1),
// after which the date is printed anyway.
func Date(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "d:D:Ir:s:u", Attached: "I", Long: map[string]rune{"utc": 'u', "iso-8601": 'I'}, Max: -1})
	if !ok {
		return st
	}
	t := c.Phone.Now().UTC()
	format := "%a %b %e %H:%M:%S %Z %Y"
	if a.Has('I') {
		i := strings.IndexByte("dhmsn", firstOr(a.Val('I'), 'd'))
		if i < 0 {
			c.ToyUsage("bad -I: %s", a.Val('I'))
			return 1
		}
		format = []string{"%F", "%FT%H%:z", "%FT%R%:z", "%FT%T%:z", "%FT%T,%N%:z"}[i]
	}
	switch {
	case a.Has('d'):
		d, ok := parseDate(a.Val('d'), t)
		if !ok {
			c.ToyErr("bad date '%s'", a.Val('d'))
			return 1
		}
		t = d
	case a.Has('r'):
		fi, err := c.Phone.FS().Stat(c.Abs(a.Val('r')))
		if err != nil {
			c.ToyPerror(err, "%s", a.Val('r'))
			return 1
		}
		t = fi.ModTime.UTC()
	}
	setdate := ""
	if a.Has('s') {
		if len(a.Operands) > 0 {
			c.ToyUsage("can't set two dates at once")
			return 1
		}
		setdate = a.Val('s')
	} else if len(a.Operands) > 0 {
		setdate = a.Operands[0]
	}
	status := 0
	switch {
	case strings.HasPrefix(setdate, "+"):
		format = setdate[1:]
	case setdate != "":
		d, ok := parseDate(setdate, t)
		if !ok {
			c.ToyErr("bad date '%s'", setdate)
			return 1
		}
		t = d
		c.ToyPerror(errPerm, "cannot set date")
		status = 1
	}
	c.Printf("%s\n", strftime(format, t))
	return status
}

func firstOr(s string, def byte) byte {
	if s == "" {
		return def
	}
	return s[0]
}

// strftime formats t as bionic's strftime in the C locale, with toybox
// date's %N (nanoseconds, %3N for a prefix) and %:z (+hh:mm).
func strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		ch := format[i]
		if IsDigit(ch) && i+1 < len(format) && format[i+1] == 'N' {
			n := int(ch - '0')
			b.WriteString(fmt.Sprintf("%09d", t.Nanosecond())[:n])
			i++
			continue
		}
		if ch == ':' && i+1 < len(format) && format[i+1] == 'z' {
			z := t.Format("-0700")
			b.WriteString(z[:3] + ":" + z[3:])
			i++
			continue
		}
		b.WriteString(strftimeConv(ch, t))
	}
	return b.String()
}

func strftimeConv(ch byte, t time.Time) string {
	switch ch {
	case 'a':
		return t.Format("Mon")
	case 'A':
		return t.Format("Monday")
	case 'b', 'h':
		return t.Format("Jan")
	case 'B':
		return t.Format("January")
	case 'c':
		return t.Format("Mon Jan  2 15:04:05 2006")
	case 'C':
		return fmt.Sprintf("%02d", t.Year()/100)
	case 'd':
		return t.Format("02")
	case 'D':
		return t.Format("01/02/06")
	case 'e':
		return fmt.Sprintf("%2d", t.Day())
	case 'F':
		return t.Format("2006-01-02")
	case 'H':
		return t.Format("15")
	case 'I':
		return t.Format("03")
	case 'j':
		return fmt.Sprintf("%03d", t.YearDay())
	case 'k':
		return fmt.Sprintf("%2d", t.Hour())
	case 'l':
		return fmt.Sprintf("%2d", (t.Hour()+11)%12+1)
	case 'm':
		return t.Format("01")
	case 'M':
		return t.Format("04")
	case 'n':
		return "\n"
	case 'N':
		return fmt.Sprintf("%09d", t.Nanosecond())
	case 'p':
		return t.Format("PM")
	case 'P':
		return strings.ToLower(t.Format("PM"))
	case 'r':
		return t.Format("03:04:05 PM")
	case 'R':
		return t.Format("15:04")
	case 's':
		return strconv.FormatInt(t.Unix(), 10)
	case 'S':
		return t.Format("05")
	case 't':
		return "\t"
	case 'T':
		return t.Format("15:04:05")
	case 'u':
		return strconv.Itoa((int(t.Weekday())+6)%7 + 1)
	case 'w':
		return strconv.Itoa(int(t.Weekday()))
	case 'y':
		return t.Format("06")
	case 'Y':
		return strconv.Itoa(t.Year())
	case 'z':
		return t.Format("-0700")
	case 'Z':
		return t.Format("MST")
	case '%':
		return "%"
	}
	return "%" + string(ch)
}
