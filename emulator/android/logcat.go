package android

import (
	"fmt"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// logID is a log buffer, liblog's log_id_t (system/logging/liblog/include/
// android/log.h): the value logcat -B writes in logger_entry.lid.
type logID uint32

const (
	logMain logID = iota
	logRadio
	logEvents
	logSystem
	logCrash
	logStats
	logSecurity
	logKernel
)

var logIDNames = [...]string{"main", "radio", "events", "system", "crash", "stats", "security", "kernel"}

// defaultLogMask is what logcat reads without -b: main, system, crash and
// kernel (empty on a user build).
const defaultLogMask = 1<<logMain | 1<<logSystem | 1<<logCrash | 1<<logKernel

// logEntry is one record of the device log.
type logEntry struct {
	seq      uint64
	t        time.Time
	pid, tid int
	uid      int
	lid      logID
	level    byte // V D I W E F
	tag, msg string
}

// systemServerPID is the pid of system_server in the model (the one ps
// lists); it logs with Slog, to the system buffer, as uid 1000.
const systemServerPID = 1433

const maxLogEntries = 5000

// logPriority is liblog's android_LogPriority for a level letter.
var logPriority = map[byte]int{'V': 2, 'D': 3, 'I': 4, 'W': 5, 'E': 6, 'F': 7, 'S': 8}

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
		e := logEntry{t: d.now(), pid: pid, tid: pid, level: lv, tag: l.Tag, msg: l.Message, uid: 10100}
		// An uncaught exception (AndroidRuntime, E or F) goes to the crash
		// buffer; system_server logs with Slog, to system, as uid 1000.
		switch {
		case pid == systemServerPID:
			e.lid, e.uid = logSystem, 1000
		case e.tag == "AndroidRuntime" && logPriority[lv] >= logPriority['E']:
			e.lid = logCrash
		}
		d.appendLog(e)
	}
}

// logf appends a line system_server logs (d.mu held).
func (d *Device) logf(level byte, tag, format string, a ...any) {
	d.appendLog(logEntry{t: d.now(), pid: systemServerPID, tid: 890, uid: 1000, lid: logSystem, level: level, tag: tag, msg: fmt.Sprintf(format, a...)})
}

// logApp appends a line an app's own process logs: its pid (as ps and
// pidof give it), its main thread, its uid, the main buffer (d.mu held).
func (d *Device) logApp(pkg string, level byte, tag, msg string) {
	pid, uid := d.appIDs(pkg)
	d.appendLog(logEntry{t: d.now(), pid: pid, tid: pid, uid: uid, lid: logMain, level: level, tag: tag, msg: msg})
}

// LogAs appends a line to the device log as pkg's process would.
func (d *Device) LogAs(pkg string, level byte, tag, msg string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.logApp(pkg, level, tag, msg)
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
	d.logf('I', "ActivityTaskManager", "START u0 {flg=0x10000000 cmp=%s} from uid 2000", ui.ShortActivity(pkg, act))
}

// Log appends a line to the device log as an app would: the main buffer,
// system_server's pid (kept for the tests that read it).
func (d *Device) Log(level byte, tag, msg string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.appendLog(logEntry{t: d.now(), pid: systemServerPID, tid: 890, uid: 10100, lid: logMain, level: level, tag: tag, msg: msg})
}

// cmdLogcat is system/logging/logcat/logcat.cpp: the options tools use
// (-d, -t N|TIME, -T N|TIME, -v FORMAT[,MODIFIERS], -b BUFFERS, -s, -c,
// -D, -B, -g, -e REGEX, -m N, --pid) and filterspecs (TAG:P, *:S). Without -d/-t it prints the log
// and then follows it until the stream closes, as a phone does. Errors are
// logcat's error(3) lines on stderr ("logcat: ..."), status 1.
func cmdLogcat(c *shell.Ctx) int {
	o, err := parseLogcatArgs(c.Args[1:], dev(c).now())
	if err != "" {
		c.Errorf("logcat: %s\n", err)
		return 1
	}
	for _, w := range o.warnings {
		c.Errorf("%s\n", w)
	}
	d := dev(c)
	d.mu.Lock()
	switch {
	case o.clear:
		kept := d.logcat[:0]
		for _, e := range d.logcat {
			if o.mask&(1<<e.lid) == 0 {
				kept = append(kept, e)
			}
		}
		d.logcat = kept
		d.mu.Unlock()
		return 0
	case o.getSize:
		for id := range logIDNames {
			if o.mask&(1<<id) == 0 {
				continue
			}
			size := 0
			for _, e := range d.logcat {
				if e.lid == logID(id) {
					size += loggerEntrySize + len(e.tag) + len(e.msg) + 3
				}
			}
			c.Printf("%s: ring buffer is 256 KiB (%s consumed), max entry is 5120 B, max payload is 4068 B\n", logIDNames[id], formatOfSize(size))
		}
		d.mu.Unlock()
		return 0
	}
	var picked []logEntry
	var last uint64
	for _, e := range d.logcat {
		last = e.seq
		if o.mask&(1<<e.lid) != 0 && !e.t.Before(o.since) && (o.pid == 0 || o.pid == e.pid) {
			picked = append(picked, e)
		}
	}
	d.mu.Unlock()
	// logd sends the last N records; logcat filters them by tag after.
	if o.tail > 0 && len(picked) > o.tail {
		picked = picked[len(picked)-o.tail:]
	}
	p := &logPrinter{o: o, c: c}
	for _, e := range picked {
		if p.print(e) {
			return 0
		}
	}
	for !o.dump {
		d.mu.Lock()
		wake := d.logWaiter()
		var fresh []logEntry
		for _, e := range d.logcat {
			if e.seq > last {
				last = e.seq
				if o.mask&(1<<e.lid) != 0 && (o.pid == 0 || o.pid == e.pid) {
					fresh = append(fresh, e)
				}
			}
		}
		d.mu.Unlock()
		for _, e := range fresh {
			if p.print(e) {
				return 0
			}
		}
		if len(fresh) > 0 {
			continue
		}
		select {
		case <-wake:
		case <-c.Context.Done():
			return shell.ExitCanceled
		}
	}
	return 0
}

// formatOfSize is logcat.cpp format_of_size: divide by 1024 while the
// value is at least 1024 ("900 B", "2 KiB").
func formatOfSize(n int) string {
	units := []string{"", "Ki", "Mi", "Gi"}
	i := 0
	for ; i < len(units)-1 && n >= 1024; i++ {
		n /= 1024
	}
	return fmt.Sprintf("%d %sB", n, units[i])
}

// logPrinter writes records as Logcat::Run's read loop does: dividers
// first (PrintDividers: "--------- beginning of BUFFER" when a buffer's
// first record is read, whether or not its line passes the filters;
// "switch to" on later changes with -D), then -B writes the record as
// logger_entry, unfiltered; otherwise ProcessBuffer applies the tag
// filters and -e, and -m stops after that many printed lines.
type logPrinter struct {
	o       *logcatOpts
	c       *shell.Ctx
	lastID  logID
	printed bool // lastID is set
	started [len(logIDNames)]bool
	count   int
}

// print handles one record and reports whether -m's count is reached.
func (p *logPrinter) print(e logEntry) (done bool) {
	if !p.o.binary && (!p.printed || e.lid != p.lastID) {
		if !p.started[e.lid] || p.o.dividers {
			word := "beginning of"
			if p.started[e.lid] {
				word = "switch to"
			}
			p.c.Printf("--------- %s %s\n", word, logIDNames[e.lid])
		}
		p.lastID, p.printed, p.started[e.lid] = e.lid, true, true
	}
	if p.o.binary {
		p.c.Stdout.Write(encodeLoggerEntry(e))
		return false
	}
	if logPriority[e.level] < p.o.filter.priority(e.tag) || (p.o.regex != nil && !p.o.regex.MatchString(e.msg)) {
		return false
	}
	p.c.Printf("%s", formatLogEntry(p.o.format, e))
	p.count++
	return p.o.maxCount > 0 && p.count >= p.o.maxCount
}
