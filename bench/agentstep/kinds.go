package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/adb-connector/adb-connector/emulator"
)

// The step kinds. The first six are measured alone, round after round on a
// still screen (the login form); the others come from the tasks' steps.
const (
	kindScreenshot = "screenshot"
	kindDump       = "ui dump"
	kindObserve    = "observe"
	kindTap        = "tap"
	kindType       = "type"
	kindSwipe      = "swipe"
	kindStep       = "observe+act step"
	kindTapElem    = "tap element (act)"
	kindTypeElem   = "type into field (act)"
	kindOpenURL    = "open url (act)"
	kindScrollTo   = "scroll to element (step)"
)

// Kind is one step kind's times (ms), ours against the baseline.
type Kind struct {
	Kind     string `json:"kind"`
	Ours     string `json:"ours"`
	Baseline string `json:"baseline"`
	Time     Pair   `json:"time_ms"`
}

// kindDesc says what each side runs for a kind.
var kindDesc = map[string][2]string{
	kindScreenshot: {"android_screenshot jpeg max_side 1024 q75 + GET download_url", "exec-out screencap -p; PNG decode, resize, JPEG q75"},
	kindDump:       {"android_ui_elements", "exec-out uiautomator dump /dev/tty; parse"},
	kindObserve:    {"android_observe jpeg 1024 q75 + GET download_url", "screenshot, then ui dump"},
	kindTap:        {"android_tap x,y", "shell input tap X Y"},
	kindType:       {"android_type_text (focused field)", "shell input text T"},
	kindSwipe:      {"android_swipe from,to 300 ms", "shell input swipe ... 300"},
	kindStep:       {"android_observe + one act by selector", "screenshot + dump + act by coordinates"},
	kindTapElem:    {"android_tap by text or resource_id", "shell input tap at the element's centre"},
	kindTypeElem:   {"android_type_text with target", "shell input tap + shell input text"},
	kindOpenURL:    {"android_open_url", "shell am start -a VIEW -d URL"},
	kindScrollTo:   {"android_observe + android_swipe up until", "(screenshot + dump + shell input swipe) until shown"},
}

// op is one measured operation.
type op func(ctx context.Context) error

// measureKinds runs n rounds of the single-operation kinds on the login
// form, each kind's two sides back to back, which goes first alternating
// round by round. The screen stays the same: the tap and the swipe land
// where nothing reacts, the typing goes into the focused username field.
func (l *lab) measureKinds(ctx context.Context, n int) (map[string][2][]time.Duration, error) {
	for _, p := range []*emulator.Device{l.phone, l.basePhone} {
		if err := reset(ctx, p.Android(), l.tasks[0]); err != nil {
			return nil, err
		}
	}
	v, err := l.base.observe(ctx)
	if err != nil {
		return nil, err
	}
	user, ok := v.find(selector{ResourceID: "username"})
	if !ok {
		return nil, fmt.Errorf("no username field on the login screen")
	}
	for _, p := range []*emulator.Device{l.phone, l.basePhone} {
		if rc := p.Android().Run(ctx, fmt.Sprintf("input tap %d %d", user.X, user.Y), nil, io.Discard, io.Discard); rc != 0 {
			return nil, fmt.Errorf("focusing the username field: exit %d", rc)
		}
	}
	w, h := v.W, v.H
	kinds := []struct {
		name       string
		ours, base op
	}{
		{kindScreenshot, l.ours.screenshot, func(ctx context.Context) error { _, _, err := l.base.screenshot(ctx); return err }},
		{kindDump, l.ours.uiElements, l.base.uiElements},
		{kindObserve, func(ctx context.Context) error { _, err := l.ours.observe(ctx); return err },
			func(ctx context.Context) error { _, err := l.base.observe(ctx); return err }},
		{kindTap, func(ctx context.Context) error { return l.ours.tap(ctx, w/2, h*3/4) },
			func(ctx context.Context) error { return l.base.tap(ctx, w/2, h*3/4) }},
		{kindType, func(ctx context.Context) error { return l.ours.typeText(ctx, "a") },
			func(ctx context.Context) error { return l.base.typeText(ctx, "a") }},
		{kindSwipe, func(ctx context.Context) error { return l.ours.swipe(ctx, w/2, h*7/10, w/2, h*11/20) },
			func(ctx context.Context) error { return l.base.swipe(ctx, w/2, h*7/10, w/2, h*11/20) }},
	}
	// One untimed call of each of ours first: the server learns the
	// screen's size and the like once per phone, the baseline's adb
	// server already holds the transport.
	for _, k := range kinds {
		if err := k.ours(ctx); err != nil {
			return nil, fmt.Errorf("%s (ours, warm-up): %w", k.name, err)
		}
	}
	out := map[string][2][]time.Duration{}
	for r := range n {
		if err := l.ours.prepare(ctx); err != nil {
			return nil, err
		}
		for _, k := range kinds {
			sides := [2]op{k.ours, k.base}
			got := out[k.name]
			for i := range 2 {
				j := (i + r) % 2 // 0 ours, 1 baseline
				if err := pause(ctx, l.think); err != nil {
					return nil, err
				}
				start := time.Now()
				if err := sides[j](ctx); err != nil {
					return nil, fmt.Errorf("%s (%s): %w", k.name, [2]string{"ours", "baseline"}[j], err)
				}
				got[j] = append(got[j], time.Since(start))
			}
			out[k.name] = got
		}
	}
	return out, nil
}

// kindOrder is the order of the kinds in the report.
var kindOrder = []string{kindScreenshot, kindDump, kindObserve, kindTap, kindType, kindSwipe,
	kindStep, kindTapElem, kindTypeElem, kindOpenURL, kindScrollTo}

// stepKinds sorts the tasks' step timings into kinds, per side.
func stepKinds(steps [2][]stepTiming, into map[string][2][]time.Duration) {
	for j, ss := range steps {
		for _, s := range ss {
			add := func(k string, d time.Duration) {
				v := into[k]
				v[j] = append(v[j], d)
				into[k] = v
			}
			switch s.Act {
			case actTap:
				add(kindTapElem, s.Total-s.Observe)
			case actType:
				add(kindTypeElem, s.Total-s.Observe)
			case actOpenURL:
				add(kindOpenURL, s.Total-s.Observe)
			case actScrollTo:
				add(kindScrollTo, s.Total)
			}
			// One observe and one act: scroll-to is many on the baseline's
			// side, the last look has no act.
			if s.Act == actTap || s.Act == actType || s.Act == actOpenURL {
				add(kindStep, s.Total)
			}
		}
	}
}
