package services

import (
	"fmt"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// Logcat is system/logging/logcat/logcat.cpp: the options tools use
// (-d, -t N|TIME, -T N|TIME, -v FORMAT[,MODIFIERS], -b BUFFERS, -s, -c,
// -D, -B, -g, -e REGEX, -m N, --pid) and filterspecs (TAG:P, *:S). Without -d/-t it prints the log
// and then follows it until the stream closes, as a phone does. Errors are
// logcat's error(3) lines on stderr ("logcat: ..."), status 1.
func Logcat(c *shell.Ctx) int {
	o, err := parseLogcatArgs(c.Args[1:], phone(c).Now())
	if err != "" {
		c.Errorf("logcat: %s\n", err)
		return 1
	}
	for _, w := range o.warnings {
		c.Errorf("%s\n", w)
	}
	d := phone(c)
	d.Lock()
	switch {
	case o.clear:
		kept := d.Logcat[:0]
		for _, e := range d.Logcat {
			if o.mask&(1<<e.LID) == 0 {
				kept = append(kept, e)
			}
		}
		d.Logcat = kept
		d.Unlock()
		return 0
	case o.getSize:
		for id := range model.LogIDNames {
			if o.mask&(1<<id) == 0 {
				continue
			}
			size := 0
			for _, e := range d.Logcat {
				if e.LID == model.LogID(id) {
					size += loggerEntrySize + len(e.Tag) + len(e.Msg) + 3
				}
			}
			c.Printf("%s: ring buffer is 256 KiB (%s consumed), max entry is 5120 B, max payload is 4068 B\n", model.LogIDNames[id], formatOfSize(size))
		}
		d.Unlock()
		return 0
	}
	var picked []model.LogEntry
	var last uint64
	for _, e := range d.Logcat {
		last = e.Seq
		if o.mask&(1<<e.LID) != 0 && !e.Time.Before(o.since) && (o.pid == 0 || o.pid == e.PID) {
			picked = append(picked, e)
		}
	}
	d.Unlock()
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
		d.Lock()
		wake := d.LogWaiter()
		var fresh []model.LogEntry
		for _, e := range d.Logcat {
			if e.Seq > last {
				last = e.Seq
				if o.mask&(1<<e.LID) != 0 && (o.pid == 0 || o.pid == e.PID) {
					fresh = append(fresh, e)
				}
			}
		}
		d.Unlock()
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
	lastID  model.LogID
	printed bool // lastID is set
	started [len(model.LogIDNames)]bool
	count   int
}

// print handles one record and reports whether -m's count is reached.
func (p *logPrinter) print(e model.LogEntry) (done bool) {
	if !p.o.binary && (!p.printed || e.LID != p.lastID) {
		if !p.started[e.LID] || p.o.dividers {
			word := "beginning of"
			if p.started[e.LID] {
				word = "switch to"
			}
			p.c.Printf("--------- %s %s\n", word, model.LogIDNames[e.LID])
		}
		p.lastID, p.printed, p.started[e.LID] = e.LID, true, true
	}
	if p.o.binary {
		p.c.Stdout.Write(encodeLoggerEntry(e))
		return false
	}
	if model.LogPriority[e.Level] < p.o.filter.priority(e.Tag) || (p.o.regex != nil && !p.o.regex.MatchString(e.Msg)) {
		return false
	}
	p.c.Printf("%s", formatLogEntry(p.o.format, e))
	p.count++
	return p.o.maxCount > 0 && p.count >= p.o.maxCount
}
