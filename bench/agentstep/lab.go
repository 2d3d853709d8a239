package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/phonefw"
)

// lab is one profile's setup: a private Debian adb server, two identical
// virtual phones with the profile, each behind a byte-counting relay (the
// cable), our serve on the same adb server with an agent paired to the
// first phone, and the baseline on the same adb server and the second.
// A phone each: with the phone helper on, ours holds the phone's one
// UiAutomation connection, which a stock `uiautomator dump` then cannot
// have (as on a real phone), so the two sides cannot share a phone.
type lab struct {
	profile string
	phone   *emulator.Device // ours
	relay   *benchtb.Relay
	serial  string
	// basePhone and baseRelay are the baseline's phone.
	basePhone *emulator.Device
	baseRelay *benchtb.Relay
	ours      *ours
	base      *baseline
	tasks     []task
	// think is the untimed pause between an observation and its act.
	think time.Duration
}

// labConfig is what every lab shares.
type labConfig struct {
	bin    string // adb-connector binary
	dir    string // temp dir (serve's data dirs)
	screen android.ScreenSpec
	think  time.Duration
	helper bool // the phone helper on (the phone can run it, the policy allows it)
}

// startLab starts a lab for profile; everything stops in tb's cleanups.
func startLab(ctx context.Context, tb *benchtb.TB, cfg labConfig, profile string) (*lab, error) {
	env := adbtest.Start(tb, adbtest.Options{Devices: -1})
	phone, relay, err := startPhone(ctx, tb, env, profile, cfg.screen)
	if err != nil {
		return nil, err
	}
	basePhone, baseRelay, err := startPhone(ctx, tb, env, profile, cfg.screen)
	if err != nil {
		return nil, err
	}
	args := []string{"--adb", env.ServerAddr}
	if cfg.helper {
		phone.Android().SetAppProcess(phonefw.Run)
	} else {
		conf := filepath.Join(cfg.dir, "helper-off-"+profile+".yaml")
		if err := os.WriteFile(conf, []byte("policies:\n  default:\n    phone_helper: off\n"), 0o600); err != nil {
			return nil, err
		}
		args = append(args, "--config", conf)
	}
	serial := relay.Addr()
	srv, err := benchtb.StartServe(ctx, benchtb.ServeOptions{Bin: cfg.bin, DataDir: filepath.Join(cfg.dir, "data-"+profile),
		Args: args})
	if err != nil {
		return nil, err
	}
	tb.Cleanup(srv.Stop)
	ag, err := benchtb.NewAgent(ctx, srv, serial)
	if err != nil {
		return nil, err
	}
	tb.Cleanup(ag.Close)
	return &lab{profile: profile, phone: phone, relay: relay, serial: serial,
		basePhone: basePhone, baseRelay: baseRelay,
		ours:  &ours{srv: srv, ag: ag},
		base:  newBaseline(env, baseRelay.Addr()),
		tasks: tasks(cfg.screen.Width, cfg.screen.Height), think: cfg.think}, nil
}

// startPhone starts a virtual phone with the launcher scenario, profile
// and screen, and a relay to it, and connects env's adb server to the
// relay: the phone's serial is the relay's address.
func startPhone(ctx context.Context, tb testing.TB, env *adbtest.Env, profile string, screen android.ScreenSpec) (*emulator.Device, *benchtb.Relay, error) {
	phone, err := emulator.Start(ctx, emulator.Options{Android: android.Config{Scenario: "launcher", Profile: profile, Screen: screen}})
	if err != nil {
		return nil, nil, err
	}
	tb.Cleanup(func() { phone.Close() })
	relay, err := benchtb.StartRelay(phone.Addr())
	if err != nil {
		return nil, nil, err
	}
	tb.Cleanup(func() { relay.Close() })
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if out, err := adbserver.Connect(cctx, env.ServerAddr, relay.Addr()); err != nil {
		return nil, nil, fmt.Errorf("adb connect %s: %q: %w", relay.Addr(), out, err)
	}
	if st, err := adbserver.WaitState(cctx, env.ServerAddr, relay.Addr(), "device"); err != nil {
		return nil, nil, fmt.Errorf("%s: state %q: %w", relay.Addr(), st, err)
	}
	return phone, relay, nil
}

// taskRun is one side's run of one task.
type taskRun struct {
	time     time.Duration
	steps    []stepTiming
	commands int
	programs map[string]int // simple commands by program
	down, up int64          // link bytes
	observes int
}

// runOne resets s's phone, then runs t on s, measuring the time, the
// phone's command log and the link's bytes.
func (l *lab) runOne(ctx context.Context, s side, t task) (taskRun, error) {
	phone, relay := l.phone, l.relay
	if _, ok := s.(*baseline); ok {
		phone, relay = l.basePhone, l.baseRelay
	}
	if err := reset(ctx, phone.Android(), t); err != nil {
		return taskRun{}, err
	}
	if o, ok := s.(*ours); ok {
		if err := o.prepare(ctx); err != nil {
			return taskRun{}, err
		}
	}
	phone.Android().ClearCommands()
	d0, u0 := relay.Bytes()
	steps, err := runTask(ctx, s, t, l.think)
	if err != nil {
		return taskRun{}, err
	}
	d1, u1 := relay.Bytes()
	// The task's time is its steps' (the pauses left out).
	var el time.Duration
	for _, st := range steps {
		el += st.Total
	}
	r := taskRun{time: el, steps: steps, down: d1 - d0, up: u1 - u0, programs: map[string]int{}}
	for _, c := range phone.Android().Commands() {
		r.commands++
		for _, argv := range c.Argv {
			if len(argv) > 0 {
				r.programs[argv[0]]++
			}
		}
	}
	for _, st := range steps {
		r.observes += st.Observations
	}
	return r, nil
}

// measureTasks runs every task runs times on both sides, which goes first
// alternating from run to run and task to task.
func (l *lab) measureTasks(ctx context.Context, runs int, only []string, kinds map[string][2][]time.Duration) ([]TaskReport, error) {
	var out []TaskReport
	for ti, t := range l.tasks {
		if len(only) > 0 && !slices.Contains(only, t.Name) {
			continue
		}
		var got [2][]taskRun
		for r := range runs {
			sides := [2]side{l.ours, l.base}
			for i := range 2 {
				j := (i + r + ti) % 2
				tr, err := l.runOne(ctx, sides[j], t)
				if err != nil {
					return nil, err
				}
				got[j] = append(got[j], tr)
				var steps [2][]stepTiming
				steps[j] = tr.steps
				stepKinds(steps, kinds)
			}
		}
		out = append(out, taskReport(t.Name, got))
	}
	return out, nil
}

// TaskReport is one task: its time, steps, device commands and link bytes
// per run, ours against the baseline.
type TaskReport struct {
	Task string `json:"task"`
	Runs int    `json:"runs"`
	// Time is the whole task in milliseconds.
	Time Pair `json:"time_ms"`
	// Observes counts the looks at the screen (the baseline's scroll loop
	// looks after every swipe).
	Observes Pair `json:"observes"`
	// DeviceCommands counts command lines the phone ran (its command log:
	// one per shell or exec stream).
	DeviceCommands Pair `json:"device_commands"`
	// Programs is the average number of simple commands per run by
	// program (screencap, uiautomator, input, ...), per side.
	Programs struct {
		Ours     map[string]float64 `json:"ours"`
		Baseline map[string]float64 `json:"baseline"`
	} `json:"programs_per_run"`
	// Bytes are the bytes on the link per run: down is host to phone, up
	// phone to host, total both.
	BytesDown  Pair `json:"bytes_down"`
	BytesUp    Pair `json:"bytes_up"`
	BytesTotal Pair `json:"bytes_total"`
}

func taskReport(name string, got [2][]taskRun) TaskReport {
	f := func(j int, get func(taskRun) float64) []float64 {
		var xs []float64
		for _, r := range got[j] {
			xs = append(xs, get(r))
		}
		return xs
	}
	p := func(get func(taskRun) float64) Pair { return pair(f(0, get), f(1, get)) }
	rep := TaskReport{Task: name, Runs: len(got[0]),
		Time:           p(func(r taskRun) float64 { return float64(r.time.Microseconds()) / 1000 }),
		Observes:       p(func(r taskRun) float64 { return float64(r.observes) }),
		DeviceCommands: p(func(r taskRun) float64 { return float64(r.commands) }),
		BytesDown:      p(func(r taskRun) float64 { return float64(r.down) }),
		BytesUp:        p(func(r taskRun) float64 { return float64(r.up) }),
		BytesTotal:     p(func(r taskRun) float64 { return float64(r.down + r.up) }),
	}
	rep.Programs.Ours, rep.Programs.Baseline = perRun(got[0]), perRun(got[1])
	return rep
}

// perRun averages the runs' program counts.
func perRun(runs []taskRun) map[string]float64 {
	out := map[string]float64{}
	for _, r := range runs {
		for prog, n := range r.programs {
			out[prog] += float64(n)
		}
	}
	for prog, n := range out {
		out[prog] = round3(n / float64(len(runs)))
	}
	return out
}
