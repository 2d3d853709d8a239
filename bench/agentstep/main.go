// Command agentstep measures what an agent's task costs through our server
// and tools against what it costs through a baseline that does what
// typical phone-driving tools do, in the same run, on the same virtual
// phone, with the phone's timing profile making it cost what a real phone
// costs (docs/phone-timings.md).
//
// For each profile (-profile, default pixel-usb and wifi) it starts a
// private Debian adb server, one virtual phone (launcher scenario, a
// 1080x2400 display: every app is there; stock Android 13, so SELinux
// keeps adb from writing touch events and both sides tap through `input`,
// a `cmd input` call) behind a byte-counting TCP relay
// that stands for the cable, and the real `adb-connector serve --adb` on
// that adb server, and pairs an agent channel through the admin socket.
// Then, each side's turn alternating so drift cancels out:
//
//   - step kinds, round after round on the still login form: screenshot
//     (JPEG, longest side 1024, q75), UI dump, observe (both), tap, type,
//     swipe;
//   - scripted tasks, the phone reset between runs (untimed): log in on
//     the login app, toggle Wi-Fi in Settings, scroll the list to Item 80,
//     open an https URL. Each step is an observe then an act, as an agent
//     does. Ours: android_observe, then android_tap / android_type_text
//     by selector, android_swipe with until, android_open_url. The
//     baseline: one adb CLI process per operation (baseline.go).
//
// It reports p50 and p90 of both sides and their ratios (ours over the
// baseline's) per step kind and per task, and per task the phone's command
// count (its command log) and the bytes on the link (the relay), prints
// Markdown tables to stdout and writes the JSON report (default
// bench/results/agentstep-<UTC time>.json). The targets are judged on
// pixel-usb: screenshot at most 0.5x the baseline, tap 0.1x, one
// observe+act step 0.5x, each task 0.5x. A missed target exits 1 only with
// -strict.
//
//	go run ./bench/agentstep                    # both profiles, about 10 min
//	go run ./bench/agentstep -short             # pixel-usb, one run, no list task, under 2 min
//	go run ./bench/agentstep -profile wifi -runs 3 -tasks login,url
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
	"github.com/adb-connector/adb-connector/emulator/android"
)

func main() {
	missed, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentstep:", err)
		os.Exit(1)
	}
	if missed {
		os.Exit(1)
	}
}

// Config is the run's shape; it is part of the report.
type Config struct {
	Profiles []string `json:"profiles"`
	Runs     int      `json:"runs"`
	Rounds   int      `json:"kind_rounds"`
	Tasks    []string `json:"tasks,omitempty"`
	Screen   string   `json:"screen"`
	// ThinkMS is the untimed pause before each act and single step.
	ThinkMS int64 `json:"think_ms"`
	Short   bool  `json:"short"`
	// Helper: the phone runs the connector's phone helper (app_process on
	// the host JVM) and serve's policy allows it; false: phone_helper: off.
	Helper bool `json:"helper"`
}

// Report is the JSON report.
type Report struct {
	Time     time.Time       `json:"time"`
	Go       string          `json:"go"`
	CPUs     int             `json:"cpus"`
	Loadavg  string          `json:"loadavg,omitempty"`
	Config   Config          `json:"config"`
	Profiles []ProfileReport `json:"profiles"`
	Targets  []Target        `json:"targets"`
	// Pass is true when every target is met.
	Pass bool `json:"pass"`
	// Baseline says what the baseline runs.
	Baseline string `json:"baseline"`
}

// ProfileReport is one timing profile's results.
type ProfileReport struct {
	Profile   string       `json:"profile"`
	Summary   string       `json:"summary"`
	Kinds     []Kind       `json:"kinds"`
	Tasks     []TaskReport `json:"tasks"`
	DurationS float64      `json:"duration_s"`
}

const baselineDesc = "one adb CLI process per operation on the same adb server: exec-out screencap -p then PNG decode, " +
	"resize to 1024, JPEG q75 on the host; exec-out uiautomator dump /dev/tty then XML parse; shell input tap/text/swipe; " +
	"shell am start -a android.intent.action.VIEW -d URL"

func run() (missed bool, err error) {
	var cfg Config
	profiles := flag.String("profile", "pixel-usb,wifi", "timing profiles, comma-separated (android.ProfileNames)")
	flag.IntVar(&cfg.Runs, "runs", 2, "runs of each task on each side")
	flag.IntVar(&cfg.Rounds, "n", 4, "rounds of the single step kinds on each side")
	only := flag.String("tasks", "", "only these tasks, comma-separated (login, wifi, list, url; default all)")
	flag.StringVar(&cfg.Screen, "screen", "1080x2400", "the phone's display, WIDTHxHEIGHT (portrait); 420 dpi")
	flag.BoolVar(&cfg.Short, "short", false, "a quick run: pixel-usb, one run of the login, wifi and url tasks, one round of the step kinds (flags given explicitly still win)")
	out := flag.String("out", "", "write the JSON report here (default bench/results/agentstep-<UTC time>.json; - for stdout)")
	bin := flag.String("bin", "", "adb-connector binary (default: go build ./cmd/adb-connector into a temp dir)")
	think := flag.Duration("think", 0, "an untimed pause before each act and each single step, as a model's think time between observing and acting "+
		"(a cache that expires sooner than this is cold for a real agent)")
	strict := flag.Bool("strict", false, "exit 1 when a target is missed")
	flag.BoolVar(&cfg.Helper, "helper", true, "our side with the phone helper (needs java, javac, enjarify: make test-deps); -helper=false sets phone_helper: off")
	tokens := flag.Bool("tokens", false, "measure tokens per observation (objects, lines, since) and the login task as one batch against call by call, on the first -profile (tokens.go)")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.Short {
		if !set["profile"] {
			*profiles = targetProfile
		}
		if !set["runs"] {
			cfg.Runs = 1
		}
		if !set["n"] {
			cfg.Rounds = 1
		}
		if !set["tasks"] {
			// The scroll to Item 80 is nine swipes and looks a side, near
			// a minute: the short run leaves it out.
			*only = "login,wifi,url"
		}
	}
	cfg.Profiles = strings.Split(*profiles, ",")
	cfg.ThinkMS = think.Milliseconds()
	if *only != "" {
		cfg.Tasks = strings.Split(*only, ",")
	}
	screen, err := parseScreen(cfg.Screen)
	if err != nil {
		return false, err
	}
	if err := checkConfig(cfg); err != nil {
		return false, err
	}

	tmp, err := os.MkdirTemp("", "agentstep-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	if *bin == "" {
		if *bin, err = benchtb.Build(tmp); err != nil {
			return false, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	if *tokens {
		return false, runTokensReport(ctx, labConfig{bin: *bin, dir: tmp, screen: screen}, cfg.Profiles[0], cfg.Runs, *out)
	}
	rep := Report{Time: time.Now().UTC(), Go: runtime.Version(), CPUs: runtime.NumCPU(), Config: cfg, Baseline: baselineDesc, Pass: true}
	for _, prof := range cfg.Profiles {
		pr, err := runProfile(ctx, labConfig{bin: *bin, dir: tmp, screen: screen, think: *think, helper: cfg.Helper}, prof, cfg)
		if err != nil {
			return false, fmt.Errorf("%s: %w", prof, err)
		}
		rep.Profiles = append(rep.Profiles, pr)
		for _, t := range judge(pr) {
			rep.Targets = append(rep.Targets, t)
			rep.Pass = rep.Pass && t.Pass
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		rep.Loadavg = strings.TrimSpace(string(b))
	}
	printMarkdown(os.Stdout, rep)
	if err := writeReport(rep, *out); err != nil {
		return false, err
	}
	return *strict && !rep.Pass, nil
}

func checkConfig(cfg Config) error {
	for _, p := range cfg.Profiles {
		if _, err := android.ProfileByName(p); err != nil {
			return err
		}
	}
	names := []string{}
	for _, t := range tasks(1080, 2400) {
		names = append(names, t.Name)
	}
	for _, t := range cfg.Tasks {
		if !slices.Contains(names, t) {
			return fmt.Errorf("unknown task %q (want some of %s)", t, strings.Join(names, ", "))
		}
	}
	if cfg.Runs < 1 || cfg.Rounds < 1 || cfg.ThinkMS < 0 || cfg.ThinkMS > 60_000 {
		return errors.New("-runs and -n must be at least 1, -think 0 to 60s")
	}
	return nil
}

// parseScreen reads "WIDTHxHEIGHT".
func parseScreen(s string) (android.ScreenSpec, error) {
	var w, h int
	if _, err := fmt.Sscanf(s, "%dx%d", &w, &h); err != nil || w < 320 || h < 320 || w > 4096 || h > 4096 || w > h {
		return android.ScreenSpec{}, fmt.Errorf("-screen %q: want portrait WIDTHxHEIGHT, 320 to 4096 pixels", s)
	}
	return android.ScreenSpec{Width: w, Height: h, Density: 420}, nil
}

func runProfile(ctx context.Context, lc labConfig, prof string, cfg Config) (pr ProfileReport, err error) {
	start := time.Now()
	tb := benchtb.New("agentstep-" + prof)
	defer tb.Close()
	defer tb.Recover(&err)
	l, err := startLab(ctx, tb, lc, prof)
	if err != nil {
		return pr, err
	}
	p, _ := android.ProfileByName(prof)
	pr = ProfileReport{Profile: prof, Summary: p.Summary}
	logf("%s: phone %s, serve up, agent paired; step kinds, %d rounds", prof, l.serial, cfg.Rounds)
	kinds, err := l.measureKinds(ctx, cfg.Rounds)
	if err != nil {
		return pr, err
	}
	logf("%s: tasks, %d runs each side", prof, cfg.Runs)
	if pr.Tasks, err = l.measureTasks(ctx, cfg.Runs, cfg.Tasks, kinds); err != nil {
		return pr, err
	}
	for _, k := range kindOrder {
		d, ok := kinds[k]
		if !ok {
			continue
		}
		pr.Kinds = append(pr.Kinds, Kind{Kind: k, Ours: kindDesc[k][0], Baseline: kindDesc[k][1], Time: pair(millis(d[0]), millis(d[1]))})
	}
	pr.DurationS = round3(time.Since(start).Seconds())
	logf("%s: done in %.0f s", prof, pr.DurationS)
	return pr, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "agentstep: "+format+"\n", args...)
}

func writeReport(rep Report, out string) error {
	return writeJSON(rep, "agentstep-"+rep.Time.Format("20060102T150405Z")+".json", out)
}

// writeJSON writes a report to out ("-": stdout; "": bench/results/name).
func writeJSON(rep any, name, out string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if out == "-" {
		_, err = os.Stdout.Write(b)
		return err
	}
	if out == "" {
		root, err := benchtb.ModuleRoot()
		if err != nil {
			return err
		}
		out = filepath.Join(root, "bench", "results", name)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	logf("report written to %s", out)
	return nil
}
