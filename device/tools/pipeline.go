package tools

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
)

// invocation is one validated call handed to a toolDef's run.
type invocation struct {
	call connector.ToolCall
	raw  json.RawMessage // the validated arguments; decodeArgs reads them into the tool's struct
	dev  *adb.Device
	meta Meta
	// policy is the device's policy in force (Config.Policy); nil: none.
	policy *policy.Effective
	// ui is, for an acting call, the phone's last UI tree if nothing acted
	// on the phone since it was dumped (uiCache.take); nil otherwise.
	ui *screen
	// audit, set by the tool, is added to the call's audit row arguments:
	// what the result says that the trail keeps (already redacted, e.g. a
	// reply's length).
	audit map[string]any
}

// handler is the tool.invoke pipeline around d.run (protocol 3.0 §8.18):
// arguments validated against the published input_schema,
// idempotency on (channel, tool_call_id), device resolution, per-channel
// rate limit, the operator's policy (policy.go), the tool itself with
// tool.progress.push while it runs over
// ProgressAfter, then the idempotency record, the audit row and metrics.
// Every error is mapped by WireError; results are returned as the JSON
// bytes recorded for replays, so a repeated call gets an identical ack.
func (t *Tools) handler(d *toolDef) connector.ToolHandler {
	return func(ctx context.Context, call connector.ToolCall) (any, error) {
		start := t.cfg.Now()
		rec := auditRow{at: start, channelID: call.Channel.ID, toolID: d.tool.ID, toolCallID: call.ToolCallID}
		a, replayed, f := t.invoke(ctx, d, call, &rec)
		rec.outcome = outcomeOK
		if a.Err != nil {
			rec.outcome = a.Err.Code
		}
		rec.replayed = replayed
		rec.latency = t.cfg.Now().Sub(start)
		t.persist(ctx, rec, f, a)
		t.metrics.observe(d.tool.ID, rec.outcome, replayed, rec.latency)
		if a.Err != nil {
			return nil, a.Err
		}
		return a.Result, nil
	}
}

// invoke runs the pipeline up to the ack; rec gets the redacted arguments
// and the device hint as they become known. f is the claimed tool_call_id,
// if any, for persist to record and release.
func (t *Tools) invoke(ctx context.Context, d *toolDef, call connector.ToolCall, rec *auditRow) (a ack, replayed bool, f *flight) {
	args, err := d.schema.validate(call.Arguments)
	if err != nil {
		return ack{Err: WireError(err)}, false, nil
	}
	rec.args = redactArgs(d.schema, args)

	if call.ToolCallID != "" {
		key := idemKey{channel: call.Channel.ID, callID: call.ToolCallID}
		f, a, replayed, err = t.idem.claim(ctx, key, d.tool.ID, argsHash(call.Arguments))
		if err != nil {
			return ack{Err: WireError(err)}, false, nil
		}
		if replayed {
			return a, true, nil
		}
	}
	return t.execute(ctx, d, call, rec), false, f
}

// execute resolves the device, applies the rate limit and the device's
// policy (checkPolicy) and runs the tool.
func (t *Tools) execute(ctx context.Context, d *toolDef, call connector.ToolCall, rec *auditRow) ack {
	inv := &invocation{call: call, raw: call.Arguments}
	var resolveErr error
	if d.needsDevice {
		// Resolved before the rate limit (memory only) because the device's
		// policy sets the rate; the resolution error still comes after it.
		inv.dev, inv.meta, resolveErr = t.cfg.Resolver.DeviceFor(ctx, call.Channel.ID)
		if resolveErr == nil {
			inv.policy = t.effective(inv.meta)
		}
	}
	if ok, retry := t.allow(inv.policy, call.Channel.ID); !ok {
		return ack{Err: WireError(&ratelimit.Error{RetryAfter: retry})}
	}
	if resolveErr != nil {
		return ack{Err: WireError(resolveErr)}
	}
	rec.deviceHint = inv.meta.Hint
	err := t.checkPolicy(ctx, d, inv)
	var res any
	if err == nil {
		if inv.dev != nil && !d.readOnly {
			inv.ui = t.ui.take(inv.dev)
		}
		stop := func() {}
		if !d.ownProgress {
			stop = t.startProgress(call)
		}
		res, err = t.runSafe(ctx, d, inv)
		stop()
		for k, v := range inv.audit {
			rec.args[k] = v
		}
	}
	if err != nil {
		var pe *policyError
		if errors.As(err, &pe) {
			t.metrics.refusals.WithLabelValues(d.tool.ID, cmp.Or(pe.Rule, rulePolicy)).Inc()
		}
		e := WireError(err)
		if e.Code == connector.CodeToolInvokeFailed {
			t.log.Warn("tool failed", "tool", d.tool.ID, "device", inv.meta.Hint, "err", err)
		} else {
			t.log.Debug("tool error", "tool", d.tool.ID, "device", inv.meta.Hint, "code", e.Code)
		}
		return ack{Err: e}
	}
	if res == nil {
		res = struct{}{}
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.log.Error("tool result does not marshal", "tool", d.tool.ID, "err", err)
		return ack{Err: WireError(err)}
	}
	return ack{Result: b}
}

// runSafe runs the tool and turns a panic into an error, so the flight is
// still released, the audit row written and the progress sender stopped.
func (t *Tools) runSafe(ctx context.Context, d *toolDef, inv *invocation) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			t.log.Error("tool panicked", "tool", d.tool.ID, "panic", fmt.Sprint(r))
			res, err = nil, errors.New("tool panicked")
		}
	}()
	return d.run(ctx, inv)
}

// startProgress sends tool.progress.push every ProgressAfter while the call
// runs. The returned stop waits for the sender, so no push follows the ack.
func (t *Tools) startProgress(call connector.ToolCall) (stop func()) {
	if call.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(t.cfg.ProgressAfter)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-tick.C:
				call.Progress(fmt.Sprintf("%s running on the device (%d s)", call.ToolID,
					int((time.Duration(n)*t.cfg.ProgressAfter).Seconds())), -1)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// argsHash identifies a call's arguments for tool_call_id reuse checks.
func argsHash(raw json.RawMessage) [32]byte {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return sha256.Sum256(raw)
	}
	return sha256.Sum256(buf.Bytes())
}

// compiledSchema is a tool's input_schema as published and compiled.
type compiledSchema struct {
	sch *jsonschema.Schema
	// audit says how each argument is written to the audit trail
	// (auditShape): as sent, as its origin, or as its length only.
	audit *auditShape
}

// compileInputSchema compiles the input_schema the Card publishes (with
// connector_channel_id), so validation and Card can never disagree.
func compileInputSchema(toolID string, schema map[string]any) (*compiledSchema, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("input_schema of %s: %w", toolID, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("input_schema of %s: %w", toolID, err)
	}
	url := "mem:///tools/" + toolID + ".json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("input_schema of %s: %w", toolID, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("input_schema of %s: %w", toolID, err)
	}
	return &compiledSchema{sch: sch, audit: auditShapeOf(schema)}, nil
}

// validate decodes raw and checks it against the schema. The error is an
// *argError naming the first offending field (sorted by location).
func (s *compiledSchema) validate(raw json.RawMessage) (map[string]any, error) {
	if len(raw) > maxArgumentsBytes {
		return nil, &argError{Reason: fmt.Sprintf("arguments larger than %d bytes", maxArgumentsBytes)}
	}
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &argError{Reason: "arguments are not valid JSON"}
	}
	args, ok := inst.(map[string]any)
	if !ok {
		return nil, &argError{Reason: "arguments must be an object"}
	}
	// connector_channel_id is the model's redundant copy of the envelope
	// channel (§8.18, §10): routing never reads it, so a call without it is
	// not refused; when present it must still be a string.
	if _, ok := args["connector_channel_id"]; !ok {
		args["connector_channel_id"] = ""
	}
	err = s.sch.Validate(inst)
	if err == nil {
		return args, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, &argError{Reason: "arguments do not match the input_schema"}
	}
	var leaves []*argError
	collectArgErrors(ve, &leaves)
	if len(leaves) == 0 {
		return nil, &argError{Reason: "arguments do not match the input_schema"}
	}
	// A wrong or unknown argument is named before a missing combination:
	// the missing one may be the wrongly spelled one.
	slices.SortFunc(leaves, func(a, b *argError) int {
		rank := func(e *argError) int {
			if strings.HasPrefix(e.Reason, anyOfReason) {
				return 1
			}
			return 0
		}
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		return strings.Compare(a.Field, b.Field)
	})
	return nil, leaves[0]
}

// safeName matches property names that may be echoed in an error.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,64}$`)

// collectArgErrors turns the leaves of a validation error tree into
// ArgErrors whose Reason quotes the schema (bounds, enum, type), never the
// value sent.
func collectArgErrors(ve *jsonschema.ValidationError, out *[]*argError) {
	if _, ok := ve.ErrorKind.(*kind.AnyOf); ok {
		*out = append(*out, anyOfError(ve))
		return
	}
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collectArgErrors(c, out)
		}
		return
	}
	field := strings.Join(ve.InstanceLocation, ".")
	sub := func(name string) string {
		if !safeName.MatchString(name) {
			name = "(unnamed)"
		}
		if field == "" {
			return name
		}
		return field + "." + name
	}
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, &argError{Field: sub(m), Reason: "is required"})
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, &argError{Field: sub(p), Reason: "is not a known argument"})
		}
	case *kind.Type:
		*out = append(*out, &argError{Field: field, Reason: "must be " + strings.Join(k.Want, " or ")})
	case *kind.Minimum:
		*out = append(*out, &argError{Field: field, Reason: "must be >= " + ratString(k.Want)})
	case *kind.Maximum:
		*out = append(*out, &argError{Field: field, Reason: "must be <= " + ratString(k.Want)})
	case *kind.ExclusiveMinimum:
		*out = append(*out, &argError{Field: field, Reason: "must be > " + ratString(k.Want)})
	case *kind.ExclusiveMaximum:
		*out = append(*out, &argError{Field: field, Reason: "must be < " + ratString(k.Want)})
	case *kind.Const:
		*out = append(*out, &argError{Field: field, Reason: "must be " + fmt.Sprint(k.Want)})
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
		}
		*out = append(*out, &argError{Field: field, Reason: "must be one of " + strings.Join(want, ", ")})
	case *kind.MinLength:
		*out = append(*out, &argError{Field: field, Reason: fmt.Sprintf("must be at least %d characters", k.Want)})
	case *kind.MaxLength:
		*out = append(*out, &argError{Field: field, Reason: fmt.Sprintf("must be at most %d characters", k.Want)})
	default:
		*out = append(*out, &argError{Field: field, Reason: "is not valid"})
	}
}

const anyOfReason = "needs one of: "

// anyOfError is one error for an object that meets none of an anyOf's
// alternatives (the combinations of arguments a tool needs, see
// requiredAnyOf): what each alternative still lacks, "y | ref and
// screen_id | text", rather than the first of its leaves.
func anyOfError(ve *jsonschema.ValidationError) *argError {
	field := strings.Join(ve.InstanceLocation, ".")
	var alts []string
	for _, c := range ve.Causes {
		var leaves []*argError
		collectArgErrors(c, &leaves)
		var parts []string
		for _, l := range leaves {
			name := strings.TrimPrefix(strings.TrimPrefix(l.Field, field), ".")
			if l.Reason == "is required" {
				parts = append(parts, name)
			} else {
				parts = append(parts, strings.TrimSpace(name+" "+l.Reason))
			}
		}
		alts = append(alts, strings.Join(parts, " and "))
	}
	return &argError{Field: field, Reason: anyOfReason + strings.Join(alts, " | ")}
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(3)
}

// decodeArgs decodes a call's validated arguments into the tool's argument
// struct: the schema the Card publishes has checked names, types and bounds,
// so only what JSON cannot hold in a Go value remains (an integer beyond
// int, like 1e400), which is an *argError naming the field. Pointer fields
// tell an absent argument from its zero value.
func decodeArgs[T any](inv *invocation) (T, error) {
	var v T
	raw := inv.raw
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && safeName.MatchString(te.Field) {
			return v, &argError{Field: te.Field, Reason: "is out of range"}
		}
		return v, &argError{Reason: "arguments do not match the input_schema"}
	}
	return v, nil
}
