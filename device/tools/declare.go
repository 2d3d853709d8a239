package tools

import (
	"context"
	"maps"
	"reflect"

	"github.com/adb-connector/adb-connector/connector"
)

// decl declares one tool: its Card entry, its arguments A, and its runner.
// A's JSON fields are the input_schema's properties; the schema itself is
// written beside it (props, required, anyOf), as Go types cannot say what
// the Card publishes of each argument (bounds, enums, descriptions) nor
// the anyOf sets of arguments a call needs. TestSchemaPropertiesAreArgs
// checks that props and A name the same arguments.
type decl[A any] struct {
	id, title, description string
	// props are the input_schema's properties, one per JSON field of A;
	// those of verifyArgs, when A embeds it, are added (verifyProperties)
	// unless props has its own.
	props map[string]any
	// required are the arguments every call needs.
	required []string
	// anyOf lists the argument sets of which a call needs one (requiredAnyOf).
	anyOf []any
	// readOnly: the tool never acts on the phone (toolDef.readOnly).
	readOnly bool
	// run executes a call whose arguments the schema checked and decodeArgs
	// decoded into A.
	run func(t *Tools, ctx context.Context, inv *invocation, a A) (any, error)
}

// noArgs is the arguments of a tool that takes none.
type noArgs struct{}

// declare builds the toolDef of d for t: the input_schema object (no other
// property than props), the result an object, a bound device needed.
func declare[A any](t *Tools, d decl[A]) *toolDef {
	props := d.props
	if _, ok := reflect.TypeFor[A]().FieldByName("verifyArgs"); ok {
		props = verifyProperties()
		maps.Copy(props, d.props)
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(d.required) > 0 {
		req := make([]any, len(d.required))
		for i, r := range d.required {
			req[i] = r
		}
		schema["required"] = req
	}
	if d.anyOf != nil {
		schema["anyOf"] = d.anyOf
	}
	return &toolDef{
		tool: connector.Tool{
			ID: d.id, Title: d.title, Description: d.description,
			InputSchema: schema, OutputSchema: map[string]any{"type": "object"},
		},
		needsDevice: true,
		readOnly:    d.readOnly,
		args:        reflect.TypeFor[A](),
		run: func(ctx context.Context, inv *invocation) (any, error) {
			a, err := decodeArgs[A](inv)
			if err != nil {
				return nil, err
			}
			return d.run(t, ctx, inv, a)
		},
	}
}
