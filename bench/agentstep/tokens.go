package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
)

// The -tokens mode measures what an agent reads and how many calls it
// makes, not device time: per observation, the bytes of
// android_ui_elements' result as objects, as lines, and with since after
// a one-element change (the Wi-Fi switch), on the screens of the scripted
// tasks through the real server; and the login task call by call against
// one android_batch (tool calls, wall time). Tokens are estimated as
// bytes/4 (OpenAI's tokenizer guide: "one token generally corresponds to
// ~4 characters of text"); the same count on the real dumps of
// adb/parse/testdata is TestElementTokens in device/tools.

// TokensReport is the -tokens report.
type TokensReport struct {
	Time    time.Time      `json:"time"`
	Profile string         `json:"profile"`
	Screens []ScreenTokens `json:"screens"`
	// LinesRatio is lines over objects, all screens' bytes summed.
	LinesRatio float64 `json:"lines_ratio"`
	// SinceRatio is the Wi-Fi toggle's since result over the full lines
	// listing of the same screen.
	SinceBytes int        `json:"since_bytes"`
	SinceRatio float64    `json:"since_ratio"`
	Login      []LoginRun `json:"login"`
}

// ScreenTokens is one screen's listing sizes.
type ScreenTokens struct {
	Screen        string `json:"screen"`
	Elements      int    `json:"elements"`
	ObjectsBytes  int    `json:"objects_bytes"`
	ObjectsTokens int    `json:"objects_tokens"`
	LinesBytes    int    `json:"lines_bytes"`
	LinesTokens   int    `json:"lines_tokens"`
}

// LoginRun is one run of the login task one way.
type LoginRun struct {
	Way       string  `json:"way"` // calls, batch
	ToolCalls int     `json:"tool_calls"`
	Downloads int     `json:"downloads"`
	WallMS    float64 `json:"wall_ms"`
}

func tokensOf(n int) int { return (n + 3) / 4 }

// runTokens runs the -tokens mode on profile.
func runTokens(ctx context.Context, lc labConfig, prof string, runs int, w io.Writer) (rep TokensReport, err error) {
	tb := benchtb.New("agentstep-tokens")
	defer tb.Close()
	defer tb.Recover(&err)
	l, err := startLab(ctx, tb, lc, prof)
	if err != nil {
		return rep, err
	}
	rep = TokensReport{Time: time.Now().UTC(), Profile: prof}
	o := l.ours
	list := func(args map[string]any) ([]byte, observeResult, error) {
		raw, err := o.ag.Invoke(ctx, "android_ui_elements", args)
		var r observeResult
		if err == nil && args["element_format"] == nil {
			err = json.Unmarshal(raw, &r)
		}
		return raw, r, err
	}
	var sumObj, sumLines int
	for _, t := range l.tasks {
		if err := reset(ctx, l.phone.Android(), t); err != nil {
			return rep, err
		}
		if err := o.prepare(ctx); err != nil {
			return rep, err
		}
		for i, st := range t.Steps {
			objRaw, r, err := list(map[string]any{})
			if err != nil {
				return rep, err
			}
			linesRaw, _, err := list(map[string]any{"element_format": "lines"})
			if err != nil {
				return rep, err
			}
			rep.Screens = append(rep.Screens, ScreenTokens{Screen: fmt.Sprintf("%s %d (%s)", t.Name, i+1, r.Foreground.Package),
				Elements: len(r.Elements), ObjectsBytes: len(objRaw), ObjectsTokens: tokensOf(len(objRaw)),
				LinesBytes: len(linesRaw), LinesTokens: tokensOf(len(linesRaw))})
			sumObj += len(objRaw)
			sumLines += len(linesRaw)
			if st.Act == actNone || st.Act == actScrollTo {
				break // the list's scroll is a minute of swipes for the same kind of screen
			}
			v := view{Package: r.Foreground.Package, W: r.Screen.Width, H: r.Screen.Height, ScreenID: r.ScreenID}
			for _, e := range r.Elements {
				v.Elems = append(v.Elems, elem{Ref: e.Ref, Text: e.Text, ResourceID: e.ResourceID, ContentDesc: e.ContentDesc,
					Checkable: e.Checkable, Checked: e.Checked, X: e.Center[0], Y: e.Center[1]})
			}
			if _, err := o.act(ctx, st, v); err != nil {
				return rep, err
			}
			if t.Name == "wifi" && st.Target.Text == "Wi-Fi" {
				// The toggle: one element changed since r.
				sinceRaw, _, err := list(map[string]any{"element_format": "lines", "since": r.ScreenID})
				if err != nil {
					return rep, err
				}
				fullRaw, _, err := list(map[string]any{"element_format": "lines"})
				if err != nil {
					return rep, err
				}
				rep.SinceBytes, rep.SinceRatio = len(sinceRaw), round3(float64(len(sinceRaw))/float64(len(fullRaw)))
				logf("wifi toggle, since: %s", sinceRaw)
			}
		}
	}
	rep.LinesRatio = round3(float64(sumLines) / float64(sumObj))

	login := l.tasks[slices.IndexFunc(l.tasks, func(t task) bool { return t.Name == "login" })]
	for range runs {
		for _, way := range []string{"calls", "batch"} {
			r, err := l.loginOnce(ctx, login, way)
			if err != nil {
				return rep, fmt.Errorf("login %s: %w", way, err)
			}
			rep.Login = append(rep.Login, r)
		}
	}
	printTokens(w, rep)
	return rep, nil
}

// loginOnce runs the login task call by call (observe then act per step,
// as runTask) or as one observe and one batch that observes after.
func (l *lab) loginOnce(ctx context.Context, t task, way string) (LoginRun, error) {
	if err := reset(ctx, l.phone.Android(), t); err != nil {
		return LoginRun{}, err
	}
	o := l.ours
	if err := o.prepare(ctx); err != nil {
		return LoginRun{}, err
	}
	r := LoginRun{Way: way}
	start := time.Now()
	if way == "calls" {
		steps, err := runTask(ctx, o, t, 0)
		if err != nil {
			return r, err
		}
		for _, st := range steps {
			r.ToolCalls += st.Observations
			r.Downloads += st.Observations
			if st.Act != actNone {
				r.ToolCalls++
			}
		}
		r.WallMS = millisOf(time.Since(start))
		return r, nil
	}
	v, err := o.observe(ctx)
	if err != nil {
		return r, err
	}
	r.ToolCalls, r.Downloads = 1, 1
	var steps []map[string]any
	for _, st := range t.Steps {
		if st.Act == actNone {
			continue
		}
		e, ok := v.find(st.Target)
		if !ok {
			return r, fmt.Errorf("no %s on the login screen", st.Target)
		}
		target := map[string]any{"ref": e.Ref, "screen_id": v.ScreenID}
		if st.Act == actType {
			steps = append(steps, map[string]any{"tool": "android_type_text", "arguments": map[string]any{"text": st.Text, "target": target}})
		} else {
			steps = append(steps, map[string]any{"tool": "android_tap", "arguments": target})
		}
	}
	var res struct {
		Completed   int           `json:"completed"`
		Observation observeResult `json:"observation"`
	}
	if err := o.call(ctx, "android_batch", map[string]any{"steps": steps, "observe_after": shotArgs}, &res); err != nil {
		return r, err
	}
	r.ToolCalls++
	if res.Completed != len(steps) {
		return r, fmt.Errorf("batch completed %d of %d steps", res.Completed, len(steps))
	}
	if err := o.download(ctx, res.Observation.Screenshot); err != nil {
		return r, err
	}
	r.Downloads++
	after := view{}
	for _, e := range res.Observation.Elements {
		after.Elems = append(after.Elems, elem{Text: e.Text, ResourceID: e.ResourceID})
	}
	if err := t.Check(after); err != nil {
		return r, err
	}
	r.WallMS = millisOf(time.Since(start))
	return r, nil
}

func millisOf(d time.Duration) float64 { return round3(float64(d.Microseconds()) / 1000) }

func printTokens(w io.Writer, rep TokensReport) {
	fmt.Fprintf(w, "## Tokens per observation (%s; tokens = bytes/4)\n\n", rep.Profile)
	fmt.Fprintln(w, "| screen | elements | objects B (tok) | lines B (tok) | lines/objects |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, s := range rep.Screens {
		fmt.Fprintf(w, "| %s | %d | %d (%d) | %d (%d) | %.2fx |\n", s.Screen, s.Elements, s.ObjectsBytes, s.ObjectsTokens,
			s.LinesBytes, s.LinesTokens, float64(s.LinesBytes)/float64(s.ObjectsBytes))
	}
	fmt.Fprintf(w, "\nAll screens: lines %.3fx of objects (target <= 0.35). Wi-Fi toggle with since: %d B (%d tok), %.3fx of the full lines listing (target <= 0.1).\n\n",
		rep.LinesRatio, rep.SinceBytes, tokensOf(rep.SinceBytes), rep.SinceRatio)
	fmt.Fprintln(w, "| login | tool calls | downloads | wall ms |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rep.Login {
		fmt.Fprintf(w, "| %s | %d | %d | %.0f |\n", r.Way, r.ToolCalls, r.Downloads, r.WallMS)
	}
}

// runTokensReport runs the -tokens mode and writes its JSON report
// (default bench/results/agentstep-tokens-<UTC time>.json).
func runTokensReport(ctx context.Context, lc labConfig, prof string, runs int, out string) error {
	rep, err := runTokens(ctx, lc, prof, runs, os.Stdout)
	if err != nil {
		return err
	}
	return writeJSON(rep, "agentstep-tokens-"+rep.Time.Format("20060102T150405Z")+".json", out)
}
