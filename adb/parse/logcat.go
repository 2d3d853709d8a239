package parse

import (
	"regexp"
	"strconv"
	"strings"
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
// 7) and brief formats. "--------- beginning of main" separators are skipped,
// and so are lines in neither format; output that has lines but none in a
// known format is an error. Empty output is an empty list.
func Logcat(out string) ([]LogLine, error) {
	lines := []LogLine{}
	unknown := 0
	for _, raw := range splitLines(out) {
		if strings.TrimSpace(raw) == "" || strings.HasPrefix(raw, "--------- ") {
			continue
		}
		if m := threadtimeRe.FindStringSubmatch(raw); m != nil {
			pid, err1 := strconv.Atoi(m[2])
			tid, err2 := strconv.Atoi(m[3])
			tag, msg, ok := splitTag(m[5])
			if err1 == nil && err2 == nil && ok {
				lines = append(lines, LogLine{Time: m[1], PID: pid, TID: tid, Level: m[4], Tag: tag, Message: msg})
				continue
			}
		}
		if m := briefRe.FindStringSubmatch(raw); m != nil {
			if pid, err := strconv.Atoi(m[3]); err == nil {
				lines = append(lines, LogLine{PID: pid, Level: m[1], Tag: strings.TrimRight(m[2], " "), Message: m[4]})
				continue
			}
		}
		unknown++
	}
	if len(lines) == 0 && unknown > 0 {
		return nil, formatErr("logcat", "no line in threadtime or brief format")
	}
	return lines, nil
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
