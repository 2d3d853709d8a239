package services

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// process is one entry of the phone's process table, as ps and pidof see
// it.
type process struct {
	user      string
	uid, pid  int
	ppid      int
	vsz, rss  int64 // KiB
	wchan     string
	state     byte
	name      string    // argv[0]: a daemon's path or an app's package
	kernelThr bool      // kernel threads have no argv: NAME shows "[comm]"
	cpu       int       // seconds of CPU time used
	start     time.Time // boot, or now for this command line's sh and ps
}

// uptime is how long the phone has been up: boot processes started this
// long before the phone's clock.
const uptime = 3*time.Hour + 17*time.Minute

// Fixed pids of the system processes the process table always has.
const (
	pidZygote64 = 652
	pidAdbd     = 1012
	shellPIDs   = 21874 // the sh running this command line; ps is the next
)

// systemProcesses are the daemons and system apps of an Android 13 Pixel
// that tools look for (init, zygote, system_server, adbd, SystemUI...).
var systemProcesses = []process{
	{user: "root", uid: 0, pid: 1, ppid: 0, vsz: 10931372, rss: 10820, wchan: "do_epoll_wait", state: 'S', name: "init", cpu: 4},
	{user: "root", uid: 0, pid: 2, ppid: 0, wchan: "kthreadd", state: 'S', name: "kthreadd", kernelThr: true, cpu: 0},
	{user: "root", uid: 0, pid: 3, ppid: 2, wchan: "rescuer_thread", state: 'I', name: "rcu_gp", kernelThr: true, cpu: 0},
	{user: "root", uid: 0, pid: 312, ppid: 1, vsz: 10829360, rss: 3584, wchan: "do_epoll_wait", state: 'S', name: "ueventd", cpu: 1},
	{user: "logd", uid: 1036, pid: 498, ppid: 1, vsz: 10975616, rss: 8164, wchan: "__do_sys_rt_sigsuspend", state: 'S', name: "/system/bin/logd", cpu: 9},
	{user: "system", uid: 1000, pid: 503, ppid: 1, vsz: 10837012, rss: 3832, wchan: "do_epoll_wait", state: 'S', name: "/system/bin/servicemanager", cpu: 2},
	{user: "root", uid: 0, pid: pidZygote64, ppid: 1, vsz: 15494576, rss: 107232, wchan: "do_sys_poll", state: 'S', name: "zygote64", cpu: 3},
	{user: "root", uid: 0, pid: 653, ppid: 1, vsz: 1852452, rss: 93360, wchan: "do_sys_poll", state: 'S', name: "zygote", cpu: 1},
	{user: "system", uid: 1000, pid: 701, ppid: 1, vsz: 11471888, rss: 30572, wchan: "do_epoll_wait", state: 'S', name: "/system/bin/surfaceflinger", cpu: 47},
	{user: "shell", uid: 2000, pid: pidAdbd, ppid: 1, vsz: 10948744, rss: 4652, wchan: "do_epoll_wait", state: 'S', name: "/apex/com.android.adbd/bin/adbd", cpu: 6},
	{user: "system", uid: 1000, pid: 1433, ppid: pidZygote64, vsz: 19847432, rss: 364880, wchan: "do_epoll_wait", state: 'S', name: "system_server", cpu: 131},
	{user: "u0_a178", uid: 10178, pid: 1862, ppid: pidZygote64, vsz: 17933632, rss: 236040, wchan: "do_epoll_wait", state: 'S', name: "com.android.systemui", cpu: 58},
	{user: "radio", uid: 1001, pid: 2199, ppid: pidZygote64, vsz: 16089532, rss: 109556, wchan: "do_epoll_wait", state: 'S', name: "com.android.phone", cpu: 7},
}

// processes returns the process table: the system processes, a process
// per app with a task (the ones am start / monkey launched and am
// force-stop has not stopped), then the shell and ps itself.
func processes(d *model.Phone) []process {
	procs := slices.Clone(systemProcesses)
	d.Lock()
	var running []string
	for _, t := range d.State.Tasks {
		if !slices.Contains(running, t.Pkg) {
			running = append(running, t.Pkg)
		}
	}
	d.Unlock()
	for _, pkg := range running {
		pid, uid := d.AppIDs(pkg)
		procs = append(procs, process{user: userName(uid), uid: uid, pid: pid, ppid: pidZygote64,
			vsz: 16392184, rss: 151000 + int64(pid%97)*1024, wchan: "do_epoll_wait", state: 'S', name: pkg, cpu: 2 + pid%7})
	}
	slices.SortFunc(procs, func(a, b process) int { return a.pid - b.pid })
	now := d.Now()
	for i := range procs {
		procs[i].start = now.Add(-uptime)
	}
	return append(procs,
		process{user: "shell", uid: 2000, pid: shellPIDs, ppid: pidAdbd, vsz: 10884524, rss: 3396, wchan: "do_wait", state: 'S', name: "sh", start: now},
		process{user: "shell", uid: 2000, pid: shellPIDs + 2, ppid: shellPIDs, vsz: 10909308, rss: 4096, wchan: "0", state: 'R', name: "ps", start: now},
	)
}

// userName is the Android user name of a uid (u0_aNNN for apps).
func userName(uid int) string {
	switch uid {
	case 0:
		return "root"
	case 1000:
		return "system"
	case 1001:
		return "radio"
	case 2000:
		return "shell"
	}
	if uid >= 10000 {
		return fmt.Sprintf("u0_a%d", uid-10000)
	}
	return strconv.Itoa(uid)
}

// psField is one ps -o column (typos[] in toys/posix/ps.c): its title,
// width (negative: left-justified) and value.
type psField struct {
	title string
	width int
	value func(p process) string
}

// psPidLen is the width of PID columns: the digits of
// /proc/sys/kernel/pid_max, 32768 on these phones.
const psPidLen = 5

var psFields = map[string]psField{
	"PID":     {"PID", psPidLen, func(p process) string { return strconv.Itoa(p.pid) }},
	"PPID":    {"PPID", psPidLen, func(p process) string { return strconv.Itoa(p.ppid) }},
	"USER":    {"USER", -12, func(p process) string { return p.user }},
	"UID":     {"UID", 5, func(p process) string { return strconv.Itoa(p.uid) }},
	"VSZ":     {"VSZ", 7, func(p process) string { return strconv.FormatInt(p.vsz, 10) }},
	"RSS":     {"RSS", 6, func(p process) string { return strconv.FormatInt(p.rss, 10) }},
	"WCHAN":   {"WCHAN", -6, func(p process) string { return p.wchan }},
	"ADDR":    {"ADDR", 12, func(p process) string { return "0" }},
	"S":       {"S", -1, func(p process) string { return string(p.state) }},
	"NAME":    {"NAME", -27, func(p process) string { return p.argv0() }},
	"CMDLINE": {"CMDLINE", -27, func(p process) string { return p.argv0() }},
	"ARGS":    {"ARGS", -27, func(p process) string { return lastSlash(p.argv0()) }},
	"COMM":    {"COMM", -27, func(p process) string { return lastSlash(p.argv0()) }},
	"CMD":     {"CMD", -15, func(p process) string { return comm(p) }},
	"TTY":     {"TTY", -8, func(p process) string { return "?" }},
	"TIME":    {"TIME", 8, func(p process) string { return fmt.Sprintf("%02d:%02d:%02d", p.cpu/3600, p.cpu/60%60, p.cpu%60) }},
	"C":       {"C", 1, func(p process) string { return "0" }},
	"STIME":   {"STIME", 5, func(p process) string { return p.start.UTC().Format("15:04") }},
}

// psAliases are the alternate names ps accepts (parse_ko).
var psAliases = map[string]string{"VSIZE": "VSZ", "UNAME": "USER"}

func (p process) argv0() string {
	if p.kernelThr {
		return "[" + p.name + "]"
	}
	return p.name
}

func lastSlash(s string) string { return s[strings.LastIndexByte(s, '/')+1:] }

// comm is /proc/PID/stat's name: at most 15 bytes of the executable's base
// name (apps: the tail of the package name).
func comm(p process) string {
	s := lastSlash(p.name)
	if len(s) > 15 {
		s = s[len(s)-15:]
	}
	return s
}

// Ps is toybox ps (toys/posix/ps.c). Without a terminal (adb shell
// with a command) it shows every process without a controlling tty, which
// is all of them, like -A; -p PIDS and extra operands select pids; -o
// picks columns (default on Android USER,PID,PPID,VSIZE,RSS,WCHAN:10,
// ADDR:10,S,NAME; -f USER:12=UID,PID,PPID,C,STIME,TTY,TIME,ARGS=CMD).
// Columns are padded as show_ps does: numbers overflow
// their width and later columns give the excess back; the last column is
// not padded. Status 1 when nothing matched.
func Ps(c *shell.Ctx) int {
	a, st, ok := c.ToyParse(shell.ToySpec{Opts: "k:P:aAdeflMno:O:p:s:t:Tu:U:g:G:wZ", Long: map[string]rune{"sort": 'k', "ppid": 'P', "pid": 'p'}, Max: -1})
	if !ok {
		return st
	}
	cols := "USER,PID,PPID,VSIZE,RSS,WCHAN:10,ADDR:10,S,NAME"
	if a.Has('f') {
		cols = "USER:12=UID,PID,PPID,C,STIME,TTY,TIME,ARGS=CMD"
	}
	if a.Has('o') {
		cols = strings.Join(a.Vals['o'], ",")
	}
	var fields []psField
	for _, spec := range strings.Split(cols, ",") {
		name, title, hasTitle := strings.Cut(spec, "=")
		name, width, hasWidth := strings.Cut(name, ":")
		key := strings.ToUpper(name)
		if alias, ok := psAliases[key]; ok {
			key = alias
		}
		f, ok := psFields[key]
		if !ok {
			c.ToyErr("bad -o '%s'", cols)
			return 1
		}
		if hasWidth {
			w, err := strconv.Atoi(width)
			if err != nil {
				c.ToyErr("bad -o '%s'", cols)
				return 1
			}
			if f.width < 0 {
				w = -w
			}
			f.width = w
		}
		if hasTitle {
			f.title = title
		}
		fields = append(fields, f)
	}
	var pids, ppids []int
	for _, list := range [][]string{a.Vals['p'], a.Operands} {
		for _, s := range list {
			for _, v := range strings.Split(s, ",") {
				n, err := strconv.Atoi(v)
				if err != nil || n <= 0 {
					c.ToyErr("bad %s", s)
					return 1
				}
				pids = append(pids, n)
			}
		}
	}
	for _, s := range a.Vals['P'] {
		for _, v := range strings.Split(s, ",") {
			n, _ := strconv.Atoi(v)
			ppids = append(ppids, n)
		}
	}
	var header strings.Builder
	for i, f := range fields {
		if i > 0 {
			header.WriteByte(' ')
		}
		fmt.Fprintf(&header, "%*s", f.width, f.title)
	}
	c.Printf("%s\n", header.String())
	shown := 0
	for _, p := range processes(phone(c)) {
		if (len(pids) > 0 || len(ppids) > 0) && !slices.Contains(pids, p.pid) && !slices.Contains(ppids, p.ppid) {
			continue
		}
		shown++
		c.Printf("%s\n", psRow(fields, p))
	}
	if shown == 0 {
		return 1
	}
	return 0
}

// psRow lays one process out as show_ps does for a non-terminal (-w).
func psRow(fields []psField, p process) string {
	var b strings.Builder
	extra := 0
	for i, f := range fields {
		out := f.value(p)
		if i > 0 {
			b.WriteByte(' ')
		}
		abslen := f.width
		left := abslen < 0
		if left {
			abslen = -abslen
		}
		olen := len(out)
		if olen > abslen {
			extra += olen - abslen
			abslen = olen
		} else if extra > 0 && olen < abslen {
			unused := min(abslen-olen, extra)
			abslen -= unused
			extra -= unused
		}
		switch {
		case i == len(fields)-1 && left:
			b.WriteString(out)
		case left:
			fmt.Fprintf(&b, "%-*s", abslen, out)
		default:
			fmt.Fprintf(&b, "%*s", abslen, out)
		}
	}
	return b.String()
}

// Pidof is toybox pidof (toys/lsb/pidof.c): the pids of processes whose
// name (argv[0], or its base name) is one of the operands, space
// separated; -s only the first; -o omits pids. Status 1 and no output when
// none runs.
func Pidof(c *shell.Ctx) int {
	a, st, ok := c.ToyParse(shell.ToySpec{Opts: "so:x", Max: -1})
	if !ok {
		return st
	}
	omit := strings.Split(strings.Join(a.Vals['o'], ","), ",")
	var found []string
	for _, p := range processes(phone(c)) {
		if p.kernelThr || slices.Contains(omit, strconv.Itoa(p.pid)) {
			continue
		}
		if slices.Contains(a.Operands, p.name) || slices.Contains(a.Operands, lastSlash(p.name)) {
			found = append(found, strconv.Itoa(p.pid))
			if a.Has('s') {
				break
			}
		}
	}
	if len(found) == 0 {
		return 1
	}
	c.Printf("%s\n", strings.Join(found, " "))
	return 0
}
