package model

import (
	"fmt"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// LogID is a log buffer, liblog's log_id_t (system/logging/liblog/include/
// android/log.h): the value logcat -B writes in logger_entry.lid.
type LogID uint32

const (
	LogMain LogID = iota
	LogRadio
	LogEvents
	LogSystem
	LogCrash
	LogStats
	LogSecurity
	LogKernel
)

var LogIDNames = [...]string{"main", "radio", "events", "system", "crash", "stats", "security", "kernel"}

// DefaultLogMask is what logcat reads without -b: main, system, crash and
// kernel (empty on a user build).
const DefaultLogMask = 1<<LogMain | 1<<LogSystem | 1<<LogCrash | 1<<LogKernel

// LogEntry is one record of the device log.
type LogEntry struct {
	Seq      uint64
	Time     time.Time
	PID, TID int
	UID      int
	LID      LogID
	Level    byte // V D I W E F
	Tag, Msg string
}

// SystemServerPID is the pid of system_server in the model (the one ps
// lists); it logs with Slog, to the system buffer, as uid 1000.
const SystemServerPID = 1433

const maxLogEntries = 5000

// LogPriority is liblog's android_LogPriority for a level letter.
var LogPriority = map[byte]int{'V': 2, 'D': 3, 'I': 4, 'W': 5, 'E': 6, 'F': 7, 'S': 8}

func (d *Phone) seedLogcat() {
	for _, l := range d.Scenario.Logcat {
		lv := byte('I')
		if l.Level != "" {
			lv = strings.ToUpper(l.Level)[0]
		}
		pid := l.PID
		if pid == 0 {
			pid = 1234
		}
		e := LogEntry{Time: d.Now(), PID: pid, TID: pid, Level: lv, Tag: l.Tag, Msg: l.Message, UID: 10100}
		// An uncaught exception (AndroidRuntime, E or F) goes to the crash
		// buffer; system_server logs with Slog, to system, as uid 1000.
		switch {
		case pid == SystemServerPID:
			e.LID, e.UID = LogSystem, 1000
		case e.Tag == "AndroidRuntime" && LogPriority[lv] >= LogPriority['E']:
			e.LID = LogCrash
		}
		d.AppendLog(e)
	}
}

// Logf appends a line system_server logs (the model locked).
func (d *Phone) Logf(level byte, tag, format string, a ...any) {
	d.AppendLog(LogEntry{Time: d.Now(), PID: SystemServerPID, TID: 890, UID: 1000, LID: LogSystem, Level: level, Tag: tag, Msg: fmt.Sprintf(format, a...)})
}

// LogApp appends a line an app's own process logs: its pid (as ps and
// pidof give it), its main thread, its uid, the main buffer (the model locked).
func (d *Phone) LogApp(pkg string, level byte, tag, msg string) {
	pid, uid := d.AppIDs(pkg)
	d.AppendLog(LogEntry{Time: d.Now(), PID: pid, TID: pid, UID: uid, LID: LogMain, Level: level, Tag: tag, Msg: msg})
}

// AppendLog adds an entry and wakes followers (the model locked).
func (d *Phone) AppendLog(e LogEntry) {
	d.logSeq++
	e.Seq = d.logSeq
	d.Logcat = append(d.Logcat, e)
	if len(d.Logcat) > maxLogEntries {
		d.Logcat = d.Logcat[len(d.Logcat)-maxLogEntries:]
	}
	if d.logWake != nil {
		close(d.logWake)
		d.logWake = nil
	}
}

// LogWaiter returns a channel closed at the next appended entry (the model locked).
func (d *Phone) LogWaiter() <-chan struct{} {
	if d.logWake == nil {
		d.logWake = make(chan struct{})
	}
	return d.logWake
}

// logActivityStart logs what ActivityTaskManager logs on a start of the
// foreground activity.
func (d *Phone) logActivityStart() {
	pkg, act := d.Foreground()
	d.Logf('I', "ActivityTaskManager", "START u0 {flg=0x10000000 cmp=%s} from uid 2000", ui.ShortActivity(pkg, act))
}
