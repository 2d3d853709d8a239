package services

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/model"
)

// logcatOpts is a parsed logcat command line.
type logcatOpts struct {
	dump, clear, getSize, binary, dividers bool
	tail                                   int       // last N records, 0 for all
	since                                  time.Time // -t/-T TIME: records at or after it
	mask                                   uint32    // 1 << logID per buffer read
	pid                                    int       // --pid: only this process, 0 for all
	regex                                  *regexp.Regexp
	maxCount                               int // -m: stop after this many printed lines
	format                                 logFormat
	filter                                 logFilter
	warnings                               []string
}

// logcatDelims separate -b buffers and -v words (logcat.cpp "delimiters").
const logcatDelims = ",:; \t\n\r\f"

// logcatLong are logcat's long options and the short ones they stand for
// (0: long only).
var logcatLong = map[string]byte{
	"binary": 'B', "buffer": 'b', "buffer-size": 'g', "clear": 'c', "debug": 0, "dividers": 'D', "file": 'f',
	"format": 'v', "grep": 'e', "head": 'm', "help": 'h', "id": 0, "last": 'L', "max-count": 'm', "pid": 0,
	"print": 0, "prune": 'p', "regex": 'e', "rotate-count": 'n', "rotate-kbytes": 'r', "statistics": 'S',
	"tail": 't', "wrap": 0,
}

// logcatTakesArg are the short options with an argument in logcat's
// getopt string ":cdDhLt:T:gG:sQf:r:n:v:b:BSpP:m:e:".
var logcatTakesArg = map[byte]bool{'t': true, 'T': true, 'G': true, 'f': true, 'r': true, 'n': true, 'v': true, 'b': true, 'P': true, 'm': true, 'e': true}

func splitLogcatList(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(logcatDelims, r) })
}

// parseLogcatArgs reads logcat's command line as Logcat::Run's
// getopt_long loop does (logcat.cpp): short options may carry their value
// glued ("-t5", "-vbrief"), the remaining arguments are filterspecs. err
// is the message logcat passes to error(3).
func parseLogcatArgs(args []string, now time.Time) (o *logcatOpts, err string) {
	o = &logcatOpts{format: logFormat{name: "threadtime"}, filter: logFilter{global: model.LogPriority['V'], tags: map[string]int{}}}
	var specs []string
	gotT := false
	type opt struct {
		c         byte
		long, val string
		has       bool
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			specs = append(specs, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			specs = append(specs, a)
			continue
		}
		var opts []opt
		if strings.HasPrefix(a, "--") {
			name, val, has := strings.Cut(a[2:], "=")
			c, ok := logcatLong[name]
			if !ok {
				return nil, fmt.Sprintf("Unknown option '%s'.", a)
			}
			needs := logcatTakesArg[c] || name == "pid" || name == "id"
			if needs && !has {
				if i+1 >= len(args) {
					return nil, fmt.Sprintf("Option '%s' needs an argument.", a)
				}
				i++
				val, has = args[i], true
			}
			opts = append(opts, opt{c, name, val, has})
		} else {
			for j := 1; j < len(a); j++ {
				if !logcatTakesArg[a[j]] {
					opts = append(opts, opt{c: a[j]})
					continue
				}
				op := opt{c: a[j], val: a[j+1:], has: j+1 < len(a)}
				if !op.has {
					if i+1 >= len(args) {
						return nil, fmt.Sprintf("Option '%s' needs an argument.", a)
					}
					i++
					op.val, op.has = args[i], true
				}
				opts = append(opts, op)
				break
			}
		}
		for _, op := range opts {
			if msg := o.apply(op.c, op.long, op.val, op.has, now, &gotT); msg != "" {
				if msg == "?" {
					msg = fmt.Sprintf("Unknown option '%s'.", a)
				}
				return nil, msg
			}
		}
	}
	if o.maxCount > 0 && gotT {
		return nil, "Cannot use -m (--max-count) and -t together."
	}
	if o.mask == 0 {
		o.mask = model.DefaultLogMask
	}
	for _, s := range specs {
		for _, rule := range strings.Fields(s) {
			if !o.filter.add(rule) {
				return nil, fmt.Sprintf("Invalid filter expression '%s'.", s)
			}
		}
	}
	return o, ""
}

// apply is one case of the getopt switch; "?" means an unknown option.
func (o *logcatOpts) apply(c byte, long, val string, has bool, now time.Time, gotT *bool) string {
	switch {
	case long == "pid":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return fmt.Sprintf("pid %s out of range.", val)
		}
		o.pid = n
		return ""
	case c == 0: // --print, --wrap, --debug, --id: no effect here
		return ""
	}
	switch c {
	case 'd':
		o.dump = true
	case 'c':
		o.clear = true
	case 'g':
		o.getSize = !has // --buffer-size=N sets the size: accepted, not modelled
	case 'B':
		o.binary = true
	case 'D':
		o.dividers = true
	case 's':
		o.filter.global = model.LogPriority['S']
	case 't', 'T':
		if c == 't' {
			*gotT, o.dump = true, true
		}
		if strings.Trim(val, "0123456789") == "" {
			n, _ := strconv.Atoi(val)
			if n < 1 {
				o.warnings = append(o.warnings, fmt.Sprintf("WARNING: -%c %s invalid, setting to 1", c, val))
				n = 1
			}
			o.tail = n
			return ""
		}
		t, ok := parseLogTime(val, now)
		if !ok {
			return fmt.Sprintf("-%c '%s' not in time format.", c, val)
		}
		o.since = t
	case 'v':
		for _, w := range splitLogcatList(val) {
			if !o.format.set(w) {
				return fmt.Sprintf("Invalid parameter '%s' to -v.", w)
			}
		}
	case 'b':
		for _, b := range splitLogcatList(val) {
			switch b {
			case "default":
				o.mask |= 1<<model.LogMain | 1<<model.LogSystem | 1<<model.LogCrash
			case "all":
				o.mask = 1<<len(model.LogIDNames) - 1
			default:
				id := slices.Index(model.LogIDNames[:], b)
				if id < 0 {
					return fmt.Sprintf("Unknown buffer '%s' listed for -b.", b)
				}
				o.mask |= 1 << id
			}
		}
	case 'e':
		re, err := regexp.Compile(val)
		if err != nil {
			return fmt.Sprintf("Invalid regex '%s'.", val)
		}
		o.regex = re
	case 'm':
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return fmt.Sprintf("-%c '%s' isn't an integer greater than zero.", c, val)
		}
		o.maxCount = n
	case 'f', 'r', 'n', 'G', 'p', 'P', 'S', 'L', 'Q', 'h':
		// files, rotation, sizes, pruning, statistics: not modelled
	default:
		return "?"
	}
	return ""
}

// parseLogTime is logcat's parseTime: "MM-DD hh:mm:ss.mmm" (this year),
// "YYYY-MM-DD hh:mm:ss.mmm" or "SECONDS.mmm" since the epoch.
func parseLogTime(s string, now time.Time) (time.Time, bool) {
	if t, err := time.Parse("2006-01-02 15:04:05.999999999", s); err == nil {
		return t, true
	}
	if t, err := time.Parse("01-02 15:04:05.999999999", s); err == nil {
		return t.AddDate(now.Year(), 0, 0), true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && strings.Contains(s, ".") {
		return time.Unix(0, int64(f*1e9)).UTC(), true
	}
	return time.Time{}, false
}

// logFilter is liblog's AndroidLogFormat filter list: a priority per tag
// and a global one ("*").
type logFilter struct {
	global int
	tags   map[string]int
}

// add is android_log_addFilterRule: "TAG[:P]" with P one of v d i w e f s
// (or a digit); "*" alone means *:D, a tag alone TAG:V.
func (f *logFilter) add(rule string) bool {
	tag, lv, hasLv := strings.Cut(rule, ":")
	if tag == "" {
		return false
	}
	pri := 0 // ANDROID_LOG_DEFAULT
	if hasLv {
		c := byte(0)
		if lv != "" {
			c = strings.ToUpper(lv)[0]
		}
		switch {
		case c == '*':
		case c >= '0' && c <= '9':
			pri = min(int(c-'0'), model.LogPriority['S'])
		default:
			p, ok := model.LogPriority[c]
			if !ok {
				return false
			}
			pri = p
		}
	}
	if tag == "*" {
		if pri == 0 {
			pri = model.LogPriority['D']
		}
		f.global = pri
		return true
	}
	if pri == 0 {
		pri = model.LogPriority['V']
	}
	f.tags[tag] = pri
	return true
}

func (f *logFilter) priority(tag string) int {
	if p, ok := f.tags[tag]; ok {
		return p
	}
	return f.global
}

// logFormat is a -v format with its modifiers (liblog logprint.cpp
// android_log_setPrintFormat / android_log_formatFromString).
type logFormat struct {
	name                               string
	year, usec, nsec, epoch, zone, uid bool
}

// set applies one -v word (a format or a modifier); false for unknown
// words.
func (f *logFormat) set(w string) bool {
	switch w {
	case "brief", "process", "tag", "thread", "raw", "time", "threadtime", "long":
		f.name = w
	case "year":
		f.year = true
	case "usec":
		f.usec = true
	case "nsec":
		f.nsec = true
	case "epoch":
		f.epoch = true
	case "zone":
		f.zone = true
	case "uid":
		f.uid = true
	case "UTC", "color", "colour", "printable", "monotonic", "descriptive":
		// The model's clock is UTC and its messages printable ASCII.
	default:
		return false
	}
	return true
}

// timestamp is android_log_formatLogLine's time field.
func (f *logFormat) timestamp(t time.Time) string {
	t = t.UTC()
	var s string
	switch {
	case f.epoch:
		s = fmt.Sprintf("%19d", t.Unix())
	case f.year:
		s = t.Format("2006-01-02 15:04:05")
	default:
		s = t.Format("01-02 15:04:05")
	}
	switch {
	case f.nsec:
		s += fmt.Sprintf(".%09d", t.Nanosecond())
	case f.usec:
		s += fmt.Sprintf(".%06d", t.Nanosecond()/1e3)
	default:
		s += fmt.Sprintf(".%03d", t.Nanosecond()/1e6)
	}
	if f.zone && !f.epoch {
		s += " +0000"
	}
	return s
}

// formatLogEntry is android_log_formatLogLine: a prefix and suffix per
// message line ("long" frames the whole message instead). With -v uid the
// uid precedes the pid: a user name of up to five letters, else the number
// ("%5d:"; threadtime turns the ':' into a space).
func formatLogEntry(f logFormat, e model.LogEntry) string {
	ts := f.timestamp(e.Time)
	uid := ""
	if f.uid {
		uid = fmt.Sprintf("%5d:", e.UID)
		if name, ok := map[int]string{0: "root", 2000: "shell"}[e.UID]; ok {
			uid = fmt.Sprintf("%5s:", name)
		}
	}
	prefix, suffix := "", "\n"
	switch f.name {
	case "tag":
		prefix = fmt.Sprintf("%c/%-8s: ", e.Level, e.Tag)
	case "process":
		prefix, suffix = fmt.Sprintf("%c(%s%5d) ", e.Level, uid, e.PID), fmt.Sprintf("  (%s)\n", e.Tag)
	case "thread":
		prefix = fmt.Sprintf("%c(%s%5d:%5d) ", e.Level, uid, e.PID, e.TID)
	case "raw":
	case "time":
		prefix = fmt.Sprintf("%s %c/%-8s(%s%5d): ", ts, e.Level, e.Tag, uid, e.PID)
	case "threadtime":
		prefix = fmt.Sprintf("%s %s%5d %5d %c %-8s: ", ts, strings.Replace(uid, ":", " ", 1), e.PID, e.TID, e.Level, e.Tag)
	case "long":
		return fmt.Sprintf("[ %s %s%5d:%5d %c/%-8s ]\n%s\n\n", ts, uid, e.PID, e.TID, e.Level, e.Tag, e.Msg)
	default: // brief
		prefix = fmt.Sprintf("%c/%-8s(%s%5d): ", e.Level, e.Tag, uid, e.PID)
	}
	var b strings.Builder
	for _, line := range strings.Split(e.Msg, "\n") {
		b.WriteString(prefix + line + suffix)
	}
	return b.String()
}

// loggerEntrySize is sizeof(struct logger_entry), the v4 header of
// system/logging/liblog/include/log/log_read.h (also its hdr_size field).
const loggerEntrySize = 28

// encodeLoggerEntry is one record as `logcat -B` writes it: struct
// logger_entry { uint16 len; uint16 hdr_size; int32 pid; uint32 tid;
// uint32 sec; uint32 nsec; uint32 lid; uint32 uid; } (little endian), then
// the payload of a text buffer: priority byte, tag, NUL, message, NUL.
// len counts the payload only.
func encodeLoggerEntry(e model.LogEntry) []byte {
	payload := make([]byte, 0, len(e.Tag)+len(e.Msg)+3)
	payload = append(payload, byte(model.LogPriority[e.Level]))
	payload = append(append(payload, e.Tag...), 0)
	payload = append(append(payload, e.Msg...), 0)
	b := make([]byte, loggerEntrySize, loggerEntrySize+len(payload))
	le := binary.LittleEndian
	le.PutUint16(b[0:], uint16(len(payload)))
	le.PutUint16(b[2:], loggerEntrySize)
	le.PutUint32(b[4:], uint32(int32(e.PID)))
	le.PutUint32(b[8:], uint32(e.TID))
	le.PutUint32(b[12:], uint32(e.Time.Unix()))
	le.PutUint32(b[16:], uint32(e.Time.Nanosecond()))
	le.PutUint32(b[20:], uint32(e.LID))
	le.PutUint32(b[24:], uint32(e.UID))
	return append(b, payload...)
}
