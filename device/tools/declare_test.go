package tools

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSchemaPropertiesAreArgs: every argument a tool's input_schema
// publishes is one its run decodes (a JSON field of its decl's argument
// type), so an argument the Card offers is never dropped by the decoding.
// The type may hold more (android_wait_for shares the selector without
// ref): the schema refuses those before run.
func TestSchemaPropertiesAreArgs(t *testing.T) {
	t.Parallel()
	for _, spec := range toolSpecs {
		d := spec.build(&Tools{})
		t.Run(d.tool.ID, func(t *testing.T) {
			props, _ := d.tool.InputSchema["properties"].(map[string]any)
			decoded := jsonFields(d.args)
			for k := range props {
				if !slices.Contains(decoded, k) {
					t.Errorf("input_schema property %q is no JSON field of %v (%v)", k, d.args, decoded)
				}
			}
		})
	}
}

// jsonFields lists the JSON names of a struct type's fields, those of
// embedded structs included, as encoding/json decodes them.
func jsonFields(typ reflect.Type) []string {
	var out []string
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case name == "-":
		case f.Anonymous && name == "" && ft.Kind() == reflect.Struct:
			out = append(out, jsonFields(ft)...)
		case !f.IsExported():
		case name == "":
			out = append(out, f.Name)
		default:
			out = append(out, name)
		}
	}
	return out
}
