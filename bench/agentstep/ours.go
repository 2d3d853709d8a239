package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
)

// ours drives the phone as an agent does through our server: tool calls
// over /ws on a paired channel, and the screenshot fetched from its
// download_url (the model needs the image itself).
type ours struct {
	srv *benchtb.Serve
	ag  *benchtb.Agent
}

func (o *ours) name() string { return "ours" }

// shotArgs is the screenshot an agent sends its model: JPEG q75, longest
// side 1024, as the baseline makes on the host.
var shotArgs = map[string]any{"format": "jpeg", "max_side": maxSide, "quality": jpegQuality}

// fileResult is the file part of a screenshot result.
type fileResult struct {
	URL   string `json:"download_url"`
	Size  int64  `json:"byte_size"`
	Width int    `json:"width"`
}

// observeResult is the part of android_observe's result an agent reads
// here (README, "android_observe").
type observeResult struct {
	Screenshot fileResult `json:"screenshot"`
	ScreenID   string     `json:"screen_id"`
	Elements   []struct {
		Ref         string `json:"ref"`
		Text        string `json:"text"`
		ResourceID  string `json:"resource_id"`
		ContentDesc string `json:"content_desc"`
		Center      [2]int `json:"center"`
		Checkable   bool   `json:"checkable"`
		Checked     bool   `json:"checked"`
	} `json:"elements"`
	Foreground struct {
		Package string `json:"package"`
	} `json:"foreground"`
	Screen struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"screen"`
}

// prepare moves to a fresh channel when this one nears its rate limit;
// run it untimed before each task and round, which make far fewer calls
// than the margin benchtb leaves.
func (o *ours) prepare(ctx context.Context) error { return o.ag.Prepare(ctx) }

// call runs one tool call and decodes its result into v (nil: ignore).
func (o *ours) call(ctx context.Context, tool string, args any, v any) error {
	res, err := o.ag.Invoke(ctx, tool, args)
	if err != nil || v == nil {
		return err
	}
	if err := json.Unmarshal(res, v); err != nil {
		return fmt.Errorf("%s result: %w", tool, err)
	}
	return nil
}

func (o *ours) download(ctx context.Context, f fileResult) error {
	if f.URL == "" || f.Size <= 0 {
		return fmt.Errorf("screenshot without a file: %+v", f)
	}
	if f.Width > maxSide {
		return fmt.Errorf("screenshot %d pixels wide, asked for at most %d", f.Width, maxSide)
	}
	return o.srv.Download(ctx, f.URL, f.Size)
}

func (o *ours) observe(ctx context.Context) (view, error) {
	var r observeResult
	if err := o.call(ctx, "android_observe", shotArgs, &r); err != nil {
		return view{}, err
	}
	if err := o.download(ctx, r.Screenshot); err != nil {
		return view{}, err
	}
	v := view{Package: r.Foreground.Package, W: r.Screen.Width, H: r.Screen.Height, ScreenID: r.ScreenID}
	for _, e := range r.Elements {
		v.Elems = append(v.Elems, elem{Ref: e.Ref, Text: e.Text, ResourceID: e.ResourceID, ContentDesc: e.ContentDesc,
			Checkable: e.Checkable, Checked: e.Checked, X: e.Center[0], Y: e.Center[1]})
	}
	return v, nil
}

// act uses the tools as the Skill describes them: the element the agent
// picked from its observation, by ref with the screen_id it came from (not
// coordinates), and android_swipe's until for "scroll to".
func (o *ours) act(ctx context.Context, s step, v view) (int, error) {
	switch s.Act {
	case actTap, actType:
		e, ok := v.find(s.Target)
		if !ok || e.Ref == "" || v.ScreenID == "" {
			return 0, fmt.Errorf("no element with %s in the observation", s.Target)
		}
		target := map[string]any{"ref": e.Ref, "screen_id": v.ScreenID}
		if s.Act == actTap {
			return 0, o.call(ctx, "android_tap", target, nil)
		}
		return 0, o.call(ctx, "android_type_text", map[string]any{"text": s.Text, "target": target}, nil)
	case actScrollTo:
		var r struct {
			Found bool `json:"found"`
		}
		// Row 80 is about nine screens down: more than the default 10
		// swipes would leave no margin.
		args := map[string]any{"direction": "up", "until": s.Target, "max_swipes": 30}
		if err := o.call(ctx, "android_swipe", args, &r); err != nil {
			return 0, err
		}
		if !r.Found {
			return 0, fmt.Errorf("android_swipe did not find %s", s.Target)
		}
		return 0, nil
	case actOpenURL:
		return 0, o.call(ctx, "android_open_url", map[string]any{"url": s.URL}, nil)
	}
	return 0, fmt.Errorf("unknown act %q", s.Act)
}

// The single operations of the step kinds (kinds.go).

func (o *ours) screenshot(ctx context.Context) error {
	var r fileResult
	if err := o.call(ctx, "android_screenshot", shotArgs, &r); err != nil {
		return err
	}
	return o.download(ctx, r)
}

func (o *ours) uiElements(ctx context.Context) error {
	return o.call(ctx, "android_ui_elements", map[string]any{}, nil)
}

func (o *ours) tap(ctx context.Context, x, y int) error {
	return o.call(ctx, "android_tap", map[string]int{"x": x, "y": y}, nil)
}

func (o *ours) typeText(ctx context.Context, text string) error {
	return o.call(ctx, "android_type_text", map[string]any{"text": text}, nil)
}

func (o *ours) swipe(ctx context.Context, x1, y1, x2, y2 int) error {
	return o.call(ctx, "android_swipe", map[string]any{"from": []int{x1, y1}, "to": []int{x2, y2}, "duration_ms": swipeMS}, nil)
}
