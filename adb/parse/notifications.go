package parse

import (
	"fmt"
	"strconv"
	"strings"
)

// Notification is one posted notification of `dumpsys notification
// --noredact` (NotificationManagerService.dumpImpl's "Notification List:",
// each record as NotificationRecord.dump prints it).
type Notification struct {
	// Key is StatusBarNotification.getKey: "user|package|id|tag|uid".
	Key     string `json:"key"`
	Package string `json:"package"`
	// Title and Text are the extras android.title and android.text
	// (--noredact prints them; redacted dumps print their length only).
	Title string `json:"title"`
	Text  string `json:"text"`
	// PostedMS is mCreationTimeMs (wall clock, ms since the epoch); 0
	// when the dump does not say.
	PostedMS int64 `json:"posted_ms"`
	// Ongoing is Notification.FLAG_ONGOING_EVENT (0x2) of flags=.
	Ongoing bool `json:"ongoing"`
}

// Notifications reads the records of `dumpsys notification --noredact`
// in the order printed. A dump without the "NOTIFICATION MANAGER" header
// nor a record wraps ErrFormat.
func Notifications(out string) ([]Notification, error) {
	var (
		list []Notification
		cur  *Notification
		seen bool
	)
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(strings.TrimRight(line, "\r"))
		if strings.Contains(t, "NOTIFICATION MANAGER") || t == "Notification List:" {
			seen = true
		}
		if strings.HasPrefix(t, "NotificationRecord(") {
			list = append(list, Notification{Package: field(t, "pkg="), Key: field(t, "key=")})
			cur = &list[len(list)-1]
			seen = true
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case strings.HasPrefix(t, "key="):
			cur.Key = strings.TrimPrefix(t, "key=")
		case strings.HasPrefix(t, "flags=0x"):
			if f, err := strconv.ParseUint(strings.TrimPrefix(t, "flags=0x"), 16, 32); err == nil {
				cur.Ongoing = f&0x2 != 0
			}
		case strings.HasPrefix(t, "mCreationTimeMs="):
			cur.PostedMS, _ = strconv.ParseInt(strings.TrimPrefix(t, "mCreationTimeMs="), 10, 64)
		case strings.HasPrefix(t, "android.title="):
			cur.Title = extraString(strings.TrimPrefix(t, "android.title="))
		case strings.HasPrefix(t, "android.text="):
			cur.Text = extraString(strings.TrimPrefix(t, "android.text="))
		}
	}
	if !seen {
		return nil, fmt.Errorf("parse dumpsys notification: %w", ErrFormat)
	}
	return list, nil
}

// field is the value of "name=" in a record's header, up to a space (a
// key ends the header with ": Notification(").
func field(s, name string) string {
	i := strings.Index(s, " "+name)
	if i < 0 {
		return ""
	}
	v := s[i+1+len(name):]
	if j := strings.IndexAny(v, " )"); j >= 0 {
		v = v[:j]
	}
	return strings.TrimSuffix(v, ":")
}

// extraString is the value of an extra as Bundle's dump prints it:
// "String (text)", "SpannableString (text)", or "null".
func extraString(v string) string {
	_, rest, ok := strings.Cut(v, " (")
	if !ok || !strings.HasSuffix(rest, ")") {
		return ""
	}
	return rest[:len(rest)-1]
}
