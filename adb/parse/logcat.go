package parse

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// LogLine is one logcat entry.
type LogLine struct {
	// Time is as printed ("01-02 15:04:05.000", with year or zone when logcat
	// was asked for them); "" in brief format.
	Time  string `json:"time,omitempty"`
	PID   int    `json:"pid"`
	TID   int    `json:"tid,omitempty"`
	Level string `json:"level"` // V, D, I, W, E, F or S
	Tag   string `json:"tag"`
	// Message is the text after "tag: ".
	Message string `json:"message"`
}

// Tags may contain ':' (Samsung's "SGM:GameManager", a process name such as
// "earchbox:search"), so the tag ends at the first ": ", the separator
// AOSP system/logging/liblog/logprint.cpp (android_log_formatLogLine) prints
// after the tag in threadtime ("%c %-8s: ") and after the pid in brief
// ("%c/%-8s(%5d): ").

var (
	// threadtime: "08-11 09:06:12.205  3639  3639 D AndroidRuntime: CheckJNI is OFF"
	// (also "-v threadtime,year" and "-v threadtime,uid" where the first
	// id column is a user name or uid; we keep the pid).
	threadtimeRe = regexp.MustCompile(`^((?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d\.\d{3,9}(?: [+-]\d{4})?)\s+(?:\S+\s+)??(\d+)\s+(\d+)\s+([VDIWEFS]) (.*)$`)
	// brief: "D/AndroidRuntime( 6646): CheckJNI is OFF"
	briefRe = regexp.MustCompile(`^([VDIWEFS])/(.*?)\(\s*(\d+)\): ?(.*)$`)
)

// Logcat parses `logcat -d` output in the threadtime (default since Android
// 7) and brief formats. "--------- beginning of main" separators are skipped.
// A line with no header right after an entry is a continuation of that
// entry's message: logcat prefixes every line of a message
// (android_log_formatLogLine splits at '\n'), so such a line was split by
// something else (a '\r' in the message, a vendor logger); it becomes an
// entry of its own with the previous header, as logcat prints the lines of a
// message. Lines in neither format before any entry are skipped; output that
// has lines but none in a known format is an error. Empty output is an empty
// list. Tags and messages are made printable: invalid UTF-8 and control
// characters (apps log binary data) become U+FFFD, tabs stay.
func Logcat(out string) ([]LogLine, error) {
	lines := []LogLine{}
	unknown := 0
	for _, raw := range splitLines(out) {
		if strings.TrimSpace(raw) == "" || strings.HasPrefix(raw, "--------- ") {
			continue
		}
		if l, ok := logcatLine(raw); ok {
			lines = append(lines, l)
			continue
		}
		if len(lines) > 0 {
			l := lines[len(lines)-1]
			l.Message = printable(raw)
			lines = append(lines, l)
			continue
		}
		unknown++
	}
	if len(lines) == 0 && unknown > 0 {
		return nil, formatErr("logcat", "no line in threadtime or brief format")
	}
	return lines, nil
}

// logcatLine parses one line with a threadtime or brief header.
func logcatLine(raw string) (LogLine, bool) {
	if m := threadtimeRe.FindStringSubmatch(raw); m != nil {
		pid, err1 := strconv.Atoi(m[2])
		tid, err2 := strconv.Atoi(m[3])
		tag, msg, ok := splitTag(m[5])
		if err1 == nil && err2 == nil && ok {
			return LogLine{Time: m[1], PID: pid, TID: tid, Level: m[4], Tag: printable(tag), Message: printable(msg)}, true
		}
	}
	if m := briefRe.FindStringSubmatch(raw); m != nil {
		if pid, err := strconv.Atoi(m[3]); err == nil {
			return LogLine{PID: pid, Level: m[1], Tag: printable(strings.TrimRight(m[2], " ")), Message: printable(m[4])}, true
		}
	}
	return LogLine{}, false
}

// printable replaces invalid UTF-8 and control characters but tab with
// U+FFFD, so a log line is safe to show and to put in JSON as text.
func printable(s string) string {
	ok := utf8.ValidString(s)
	for i := 0; ok && i < len(s); i++ {
		ok = s[i] >= 0x20 && s[i] != 0x7f || s[i] == '\t'
	}
	if ok {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return utf8.RuneError
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}

// splitTag splits "tag: message" at the first ": ". A line cut right after
// the tag ("tag:", trailing space trimmed by a tool) has an empty message;
// a line with no ": " at all falls back to the first ':' ("tag:message").
func splitTag(s string) (tag, msg string, ok bool) {
	switch {
	case strings.Contains(s, ": "):
		tag, msg, _ = strings.Cut(s, ": ")
	case strings.HasSuffix(s, ":"):
		tag = s[:len(s)-1]
	case strings.Contains(s, ":"):
		tag, msg, _ = strings.Cut(s, ":")
	default:
		return "", "", false
	}
	return strings.TrimRight(tag, " "), msg, true
}
