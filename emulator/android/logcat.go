package android

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// logEntry is one line of the device log (the main buffer).
type logEntry struct {
	seq      uint64
	t        time.Time
	pid, tid int
	level    byte // V D I W E F
	tag, msg string
}

const maxLogEntries = 5000

var levelRank = map[byte]int{'V': 2, 'D': 3, 'I': 4, 'W': 5, 'E': 6, 'F': 7, 'S': 8}

func (d *Device) seedLogcat() {
	for _, l := range d.sc.Logcat {
		lv := byte('I')
		if l.Level != "" {
			lv = strings.ToUpper(l.Level)[0]
		}
		pid := l.PID
		if pid == 0 {
			pid = 1234
		}
		d.appendLog(logEntry{t: d.now(), pid: pid, tid: pid, level: lv, tag: l.Tag, msg: l.Message})
	}
}

// logf appends a line to the device log (d.mu held).
func (d *Device) logf(level byte, tag, format string, a ...any) {
	d.appendLog(logEntry{t: d.now(), pid: 567, tid: 890, level: level, tag: tag, msg: fmt.Sprintf(format, a...)})
}

// appendLog adds an entry and wakes followers (d.mu held).
func (d *Device) appendLog(e logEntry) {
	d.logSeq++
	e.seq = d.logSeq
	d.logcat = append(d.logcat, e)
	if len(d.logcat) > maxLogEntries {
		d.logcat = d.logcat[len(d.logcat)-maxLogEntries:]
	}
	if d.logWake != nil {
		close(d.logWake)
		d.logWake = nil
	}
}

// logWaiter returns a channel closed at the next appended entry (d.mu held).
func (d *Device) logWaiter() <-chan struct{} {
	if d.logWake == nil {
		d.logWake = make(chan struct{})
	}
	return d.logWake
}

// logActivityStart logs what ActivityTaskManager logs on a start of the
// foreground activity.
func (d *Device) logActivityStart() {
	pkg, act := d.foreground()
	d.logf('I', "ActivityTaskManager", "START u0 {flg=0x10000000 cmp=%s} from uid 2000", shortActivity(pkg, act))
}

// Log appends a line to the device log, as an app would (for tests).
func (d *Device) Log(level byte, tag, msg string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.logf(level, tag, "%s", msg)
}

// cmdLogcat: `logcat -d [-t N] [-v brief|threadtime|time|tag] [-s] [-b B]
// [TAG:LEVEL ...]`. Without -d (or -t) a real logcat follows the log
// forever; here it prints what there is and then waits for the stream to
// close, printing new lines as they are logged. Default format threadtime
// (Android 7+).
func cmdLogcat(c *cmdCtx) int {
	format := "threadtime"
	tail := -1
	dump := false
	silent := false
	var specs []string
	args := c.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		switch {
		case a == "-d":
			dump = true
		case a == "-c":
			c.d.mu.Lock()
			c.d.logcat = nil
			c.d.mu.Unlock()
			return 0
		case a == "-t" || a == "-T":
			v, ok := next()
			n, err := strconv.Atoi(v)
			if !ok || err != nil || n < 0 {
				c.errorf("logcat: -t %q not a number\n", v)
				return 1
			}
			tail, dump = n, a == "-t" || dump
		case a == "-v":
			v, _ := next()
			format = v
		case a == "-b":
			next()
		case a == "-s":
			silent = true
		case strings.HasPrefix(a, "-v") && len(a) > 2:
			format = a[2:]
		case strings.HasPrefix(a, "-t") && len(a) > 2:
			n, err := strconv.Atoi(a[2:])
			if err != nil {
				return 1
			}
			tail, dump = n, true
		case strings.HasPrefix(a, "-"):
		default:
			specs = append(specs, a)
		}
	}
	switch format {
	case "brief", "threadtime", "time", "tag", "process", "raw", "long":
	default:
		c.errorf("Invalid parameter \"%s\" to -v.\n", format)
		return 1
	}
	filter := map[string]int{"*": levelRank['V']}
	if silent {
		filter["*"] = levelRank['S']
	}
	for _, s := range specs {
		tag, lv, ok := strings.Cut(s, ":")
		rank := levelRank['V']
		if ok {
			r, known := levelRank[strings.ToUpper(lv + "V")[0]]
			if !known {
				c.errorf("Invalid filter expression '%s'\n", s)
				return 1
			}
			rank = r
		}
		filter[tag] = rank
	}
	pass := func(e logEntry) bool {
		min, ok := filter[e.tag]
		if !ok {
			min = filter["*"]
		}
		return levelRank[e.level] >= min
	}
	c.d.mu.Lock()
	var lines []logEntry
	var last uint64
	for _, e := range c.d.logcat {
		if pass(e) {
			lines = append(lines, e)
		}
		last = e.seq
	}
	c.d.mu.Unlock()
	if tail >= 0 && len(lines) > tail {
		lines = lines[len(lines)-tail:]
	}
	c.printf("--------- beginning of main\n")
	for _, e := range lines {
		c.printf("%s\n", formatLog(format, e))
	}
	for !dump {
		c.d.mu.Lock()
		wake := c.d.logWaiter()
		var fresh []logEntry
		for _, e := range c.d.logcat {
			if e.seq > last {
				last = e.seq
				if pass(e) {
					fresh = append(fresh, e)
				}
			}
		}
		c.d.mu.Unlock()
		for _, e := range fresh {
			c.printf("%s\n", formatLog(format, e))
		}
		if len(fresh) > 0 {
			continue
		}
		select {
		case <-wake:
		case <-c.ctx.Done():
			return exitCanceled
		}
	}
	return 0
}

func formatLog(format string, e logEntry) string {
	ts := e.t.UTC().Format("01-02 15:04:05.000")
	switch format {
	case "brief":
		return fmt.Sprintf("%c/%-8s(%5d): %s", e.level, e.tag, e.pid, e.msg)
	case "time":
		return fmt.Sprintf("%s %c/%-8s(%5d): %s", ts, e.level, e.tag, e.pid, e.msg)
	case "tag":
		return fmt.Sprintf("%c/%-8s: %s", e.level, e.tag, e.msg)
	case "process":
		return fmt.Sprintf("%c(%5d) %s  (%s)", e.level, e.pid, e.msg, e.tag)
	case "raw":
		return e.msg
	}
	return fmt.Sprintf("%s %5d %5d %c %-8s: %s", ts, e.pid, e.tid, e.level, e.tag, e.msg)
}
