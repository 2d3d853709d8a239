package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/adb-connector/adb-connector/connector"
)

// A form of five fields is ten calls, each a round trip through xAgent
// and a turn of the model. android_batch runs several acting or waiting
// steps in one call (as agent-device's batch and Maestro's run_flow do),
// but keeps every guarantee of a call made alone: each step goes through
// the very pipeline of handler (validation, idempotency, rate limit,
// policy, the cached-tree rule of uicache.go, progress, the audit row with
// the step's own redaction, metrics), so a step's refs and screen_id
// resolve exactly as they would one by one.

// Batch bounds.
const (
	MaxBatchSteps = 20
)

// batchable are the tools a batch step may name: those that act on the
// phone or wait for it. Reading tools (observe, screenshot, ui_elements)
// have observe_after; recording, shell and batch itself are never steps.
var batchable = []string{
	"android_tap", "android_type_text", "android_swipe", "android_press_key", "android_wait_for",
	"android_app_launch", "android_app_stop", "android_open_url", "android_pinch", "android_rotate",
	"android_permission",
}

// BatchStep is one step's outcome: its result as the tool returns it, or
// its error.
type BatchStep struct {
	Tool   string           `json:"tool"`
	OK     bool             `json:"ok"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *connector.Error `json:"error,omitempty"`
}

// BatchResult is android_batch's result: the steps that ran, in order
// (a step after a stop is absent), how many succeeded, and the
// observation of observe_after (or its error).
type BatchResult struct {
	Steps            []BatchStep      `json:"steps"`
	Completed        int              `json:"completed"`
	Observation      json.RawMessage  `json:"observation,omitempty"`
	ObservationError *connector.Error `json:"observation_error,omitempty"`
}

// batchArgs are android_batch's arguments.
type batchArgs struct {
	Steps []struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"steps"`
	ContinueOnError bool            `json:"continue_on_error"`
	ObserveAfter    json.RawMessage `json:"observe_after"`
}

func batchTool(t *Tools) *toolDef {
	enum := make([]any, len(batchable))
	for i, id := range batchable {
		enum[i] = id
	}
	props := map[string]any{
		"steps": map[string]any{"type": "array", "minItems": 1, "maxItems": MaxBatchSteps,
			"description": "The steps, run in order.",
			"items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"tool":      map[string]any{"type": "string", "enum": enum, "description": "The tool to run."},
					"arguments": map[string]any{"type": "object", "description": "Its arguments, as when called alone."},
				},
				"required":             []any{"tool"},
				"additionalProperties": false,
			}},
		"continue_on_error": map[string]any{"type": "boolean", "default": false,
			"description": "Run the later steps after a failed one (never after not_permitted)."},
	}
	if t.cfg.Files != nil { // android_observe is offered
		props["observe_after"] = map[string]any{"type": "object", "properties": observeTool(t).tool.InputSchema["properties"],
			"additionalProperties": false, "description": "android_observe's arguments: observe the phone after the steps."}
	}
	return declare(t, decl[batchArgs]{
		id: "android_batch", title: "Run several Android actions in one call",
		props: props, required: []string{"steps"},
		// The batch itself does not act: each step takes the cached tree
		// (uicache.go) as it would alone, so a first tap by ref needs no dump.
		readOnly: true, run: (*Tools).runBatch,
		description: "Runs 1-20 steps {tool, arguments} in order on the bound phone, each an acting or waiting tool " +
			"(android_tap, android_type_text, android_swipe, android_press_key, android_wait_for, android_app_launch, " +
			"android_app_stop, android_open_url) with the arguments it takes alone, checked and audited as if called " +
			"alone. Stops at the first failed step unless continue_on_error; a step the policy forbids (not_permitted) " +
			"always stops the batch. observe_after (android_observe's arguments) returns an observation at the end. " +
			"Result: steps [{tool, ok, result | error {code, message}}] for the steps that ran, completed (steps that " +
			"succeeded), observation.",
	})
}

// def returns the registered tool id, or nil.
func (t *Tools) def(id string) *toolDef {
	i := slices.IndexFunc(t.defs, func(d *toolDef) bool { return d.tool.ID == id })
	if i < 0 {
		return nil
	}
	return t.defs[i]
}

// runBatch checks every step's arguments against its tool's schema before
// anything runs (a mistake in step 5 loses nothing of steps 1-4), then
// runs the steps through handler one by one.
func (t *Tools) runBatch(ctx context.Context, inv *invocation, a batchArgs) (any, error) {
	for i, s := range a.Steps {
		if d := t.def(s.Tool); d != nil {
			if _, err := d.schema.validate(s.Arguments); err != nil {
				var ae *argError
				if errors.As(err, &ae) {
					return nil, &argError{Field: fmt.Sprintf("steps.%d.arguments", i) + dotted(ae.Field), Reason: ae.Reason}
				}
				return nil, err
			}
		}
	}
	var observe *toolDef
	if a.ObserveAfter != nil {
		if observe = t.def("android_observe"); observe == nil {
			return nil, &argError{Field: "observe_after", Reason: "needs android_observe, which this server does not offer"}
		}
	}
	res := BatchResult{Steps: []BatchStep{}}
	stopped := false
	for i, s := range a.Steps {
		step := BatchStep{Tool: s.Tool}
		out, err := t.runStep(ctx, inv.call, i, len(a.Steps), s.Tool, s.Arguments)
		if err != nil {
			step.Error = WireError(err)
		} else {
			step.OK, step.Result = true, out
			res.Completed++
		}
		res.Steps = append(res.Steps, step)
		if err == nil {
			continue
		}
		if step.Error.Code == codeNotPermitted {
			stopped = true // nothing after a forbidden step runs, observe_after included
			break
		}
		if !a.ContinueOnError {
			break
		}
	}
	if observe != nil && !stopped && ctx.Err() == nil {
		out, err := t.runStep(ctx, inv.call, len(a.Steps), len(a.Steps), observe.tool.ID, a.ObserveAfter)
		if err != nil {
			res.ObservationError = WireError(err)
		} else {
			res.Observation = out
		}
	}
	return res, nil
}

// runStep runs one step (index i of n; i == n is observe_after) through
// the pipeline as its own call: its tool_call_id is the batch's with
// ".<i+1>" appended (none when the batch has none), its progress pushes
// name the step. A tool this server does not offer is not_permitted.
func (t *Tools) runStep(ctx context.Context, batch connector.ToolCall, i, n int, tool string, args json.RawMessage) (json.RawMessage, error) {
	d := t.def(tool)
	if d == nil {
		return nil, refuse(ruleTool, "%s is not offered by this server", tool)
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	name := fmt.Sprintf("step %d of %d, %s", i+1, n, tool)
	if i == n {
		name = "observe_after, " + tool
	}
	call := connector.ToolCall{Channel: batch.Channel, ToolID: tool, Arguments: args}
	if batch.ToolCallID != "" {
		call.ToolCallID = fmt.Sprintf("%s.%d", batch.ToolCallID, i+1)
	}
	if p := batch.Progress; p != nil {
		p(name+": running", float64(i)/float64(n+1))
		call.Progress = func(msg string, _ float64) { p(name+": "+msg, -1) }
	}
	res, err := t.handler(d)(ctx, call)
	if err != nil {
		return nil, err
	}
	b, ok := res.(json.RawMessage)
	if !ok {
		return json.Marshal(res)
	}
	return b, nil
}

// dotted is "."+f, or "" for no field.
func dotted(f string) string {
	if f == "" {
		return ""
	}
	return "." + f
}
