package policy

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Error is a mistake in a config file: where it is (the key's path, as
// policies.rules[0].rate_per_minute, and its line) and what is wrong, with
// what is allowed.
type Error struct {
	Path string
	Line int // 0 when not tied to one line
	Msg  string
}

func (e *Error) Error() string {
	var sb strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&sb, "line %d: ", e.Line)
	}
	if e.Path != "" {
		sb.WriteString(e.Path + ": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

func errAt(n *yaml.Node, path, format string, args ...any) *Error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &Error{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Duration is a Go duration written as a string ("30s", "5m", "1h30m").
type Duration time.Duration

var durationType = reflect.TypeFor[Duration]()

// decodeYAML parses one YAML document into v (a pointer to a struct whose
// fields carry yaml tags), strictly: an unknown or repeated key, a value of
// the wrong type or shape is an *Error naming the key, the line and what
// is allowed. yaml.v3's own decoder (even with KnownFields) names neither
// the key of a type error nor the keys allowed, hence this walk over the
// parsed node tree.
func decodeYAML(data []byte, v any) error {
	var doc yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file: every default
		}
		return &Error{Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return errAt(&extra, "", "a second YAML document; a config file holds one")
	}
	if len(doc.Content) == 0 {
		return nil
	}
	return decodeNode(doc.Content[0], reflect.ValueOf(v).Elem(), "")
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

func decodeNode(n *yaml.Node, v reflect.Value, path string) error {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if v.Type() == durationType {
		if n.Kind != yaml.ScalarNode {
			return errAt(n, path, "want a duration such as 30s, 5m or 1h; got %s", kindName(n))
		}
		d, err := time.ParseDuration(n.Value)
		if err != nil {
			return errAt(n, path, "want a duration such as 30s, 5m or 1h; got %q", n.Value)
		}
		if d < 0 {
			return errAt(n, path, "must not be negative (got %s)", n.Value)
		}
		v.SetInt(int64(d))
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if isNull(n) {
			return nil
		}
		p := reflect.New(v.Type().Elem())
		if err := decodeNode(n, p.Elem(), path); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		return decodeStruct(n, v, path)
	case reflect.Slice:
		if isNull(n) {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return errAt(n, path, "want a list ([a, b] or one '- item' a line); got %s", kindName(n))
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := decodeNode(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return errAt(n, path, "want %s; got %s", scalarWant(v.Kind()), kindName(n))
	}
	switch v.Kind() {
	case reflect.String:
		if isNull(n) {
			return errAt(n, path, "want a string; got nothing")
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if n.Tag != "!!bool" {
			return errAt(n, path, "want true or false; got %q", n.Value)
		}
		b, _ := strconv.ParseBool(strings.ToLower(n.Value))
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if n.Tag != "!!int" || err != nil {
			return errAt(n, path, "want a whole number; got %q", n.Value)
		}
		if i < 0 {
			return errAt(n, path, "must not be negative (got %d)", i)
		}
		v.SetInt(i)
	default:
		return errAt(n, path, "cannot be decoded (internal: %s)", v.Kind())
	}
	return nil
}

func scalarWant(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	}
	return "a string"
}

func decodeStruct(n *yaml.Node, v reflect.Value, path string) error {
	t := v.Type()
	fields := map[string]int{}
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		fields[name] = i
		names = append(names, name)
	}
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return errAt(n, path, "want a mapping of %s; got %s", strings.Join(names, ", "), kindName(n))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			return errAt(k, path, "keys must be plain names (one of %s)", strings.Join(names, ", "))
		}
		idx, ok := fields[k.Value]
		if !ok {
			where := "here"
			if path != "" {
				where = "in " + path
			}
			return errAt(k, join(path, k.Value), "unknown key %s; allowed: %s", where, strings.Join(names, ", "))
		}
		if seen[k.Value] {
			return errAt(k, join(path, k.Value), "given twice")
		}
		seen[k.Value] = true
		if err := decodeNode(val, v.Field(idx), join(path, k.Value)); err != nil {
			return err
		}
	}
	return nil
}
