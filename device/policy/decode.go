package policy

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/adb-connector/adb-connector/internal/suggest"
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

// decoder parses one YAML document into a File strictly: an unknown or
// repeated key, a value of the wrong type or shape is an *Error naming the
// key, the line and what is allowed. yaml.v3's own decoder (even with
// KnownFields) names neither the key of a type error nor the keys allowed,
// and stops at the first, hence this walk over the parsed node tree, which
// records every mistake and goes on with the next key.
type decoder struct {
	settings []string       // server setting keys allowed at the top
	lines    map[string]int // key path -> line, for the checks after decoding
	errs     []*Error
}

// add records err: an *Error, or a join of them.
func (d *decoder) add(err error) {
	var e *Error
	switch {
	case errors.As(err, &e) && !isJoin(err):
		d.errs = append(d.errs, e)
	case isJoin(err):
		for _, x := range err.(interface{ Unwrap() []error }).Unwrap() {
			d.add(x)
		}
	default:
		d.errs = append(d.errs, &Error{Msg: err.Error()})
	}
}

func isJoin(err error) bool {
	_, ok := err.(interface{ Unwrap() []error })
	return ok
}

// err joins the mistakes recorded, by line; a check after decoding that
// names a key path gets that key's line.
func (d *decoder) err() error {
	for _, e := range d.errs {
		if e.Line == 0 {
			for p := e.Path; p != "" && e.Line == 0; p = parentPath(p) {
				e.Line = d.lines[p]
			}
		}
	}
	slices.SortStableFunc(d.errs, func(a, b *Error) int { return a.Line - b.Line })
	errs := make([]error, len(d.errs))
	for i, e := range d.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// parentPath drops the last element of a key path: a.b[2] -> a.b -> a.
func parentPath(p string) string {
	if i := strings.LastIndexAny(p, ".["); i > 0 {
		return p[:i]
	}
	return ""
}

// msgTab is what a tab in indentation gets: YAML forbids it (YAML 1.2
// §6.1, "Indentation Spaces"), and yaml.v3 says only "found character
// that cannot start any token".
const msgTab = "tabs are not allowed in YAML indentation; indent with spaces"

// decode parses data into f. A tab in a line's indentation is reported,
// then read as two spaces, so the rest of the file is still checked.
func (d *decoder) decode(data []byte, f *File) {
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if strings.Contains(indent, "\t") {
			d.errs = append(d.errs, &Error{Line: i + 1, Msg: msgTab})
			lines[i] = strings.ReplaceAll(indent, "\t", "  ") + l[len(indent):]
		}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(strings.Join(lines, "\n")))
	if err := dec.Decode(&doc); err != nil {
		if !errors.Is(err, io.EOF) { // an empty file: every default
			d.errs = append(d.errs, &Error{Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")})
		}
		return
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.errs = append(d.errs, errAt(&extra, "", "a second YAML document; a config file holds one"))
	}
	if len(doc.Content) == 0 {
		return
	}
	d.node(doc.Content[0], reflect.ValueOf(f).Elem(), "")
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

// node decodes n into v; a mistake is recorded and reported false.
func (d *decoder) node(n *yaml.Node, v reflect.Value, path string) bool {
	if err := d.value(n, v, path); err != nil {
		d.errs = append(d.errs, err)
		return false
	}
	return true
}

// value decodes n into v, or returns the mistake of n itself (those of
// what n holds are recorded as they are met).
func (d *decoder) value(n *yaml.Node, v reflect.Value, path string) *Error {
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
		if d.node(n, p.Elem(), path) {
			v.Set(p)
		}
		return nil
	case reflect.Struct:
		return d.structure(n, v, path)
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
			p := fmt.Sprintf("%s[%d]", path, i)
			d.lines[p] = item.Line
			d.node(item, s.Index(i), p)
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

func (d *decoder) structure(n *yaml.Node, v reflect.Value, path string) *Error {
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
	if path == "" {
		names = append(slices.Clip(d.settings), names...)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			d.errs = append(d.errs, errAt(k, path, "keys must be plain names (one of %s)", strings.Join(names, ", ")))
			continue
		}
		p := join(path, k.Value)
		d.lines[p] = k.Line
		if seen[k.Value] {
			d.errs = append(d.errs, errAt(k, p, "given twice"))
			continue
		}
		seen[k.Value] = true
		if idx, ok := fields[k.Value]; ok {
			d.node(val, v.Field(idx), p)
			continue
		}
		if path == "" && slices.Contains(d.settings, k.Value) {
			d.setting(k, val, v)
			continue
		}
		where := "here"
		if path != "" {
			where = "in " + path
		}
		hint := ""
		if c := suggest.Closest(k.Value, names); c != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", c)
		}
		d.errs = append(d.errs, errAt(k, p, "unknown key %s%s; allowed: %s", where, hint, strings.Join(names, ", ")))
	}
	return nil
}

// setting records a server setting of the File in v: a value, or a list
// of values, each a scalar. Serve's flag parser checks them.
func (d *decoder) setting(k, val *yaml.Node, v reflect.Value) {
	f := v.Addr().Interface().(*File)
	if f.Settings == nil {
		f.Settings = map[string]Setting{}
	}
	items := []*yaml.Node{val}
	if val.Kind == yaml.SequenceNode {
		items = val.Content
	}
	s := Setting{Line: k.Line, List: val.Kind == yaml.SequenceNode}
	for _, it := range items {
		if it.Kind != yaml.ScalarNode || isNull(it) {
			d.errs = append(d.errs, errAt(it, k.Value, "want a value (a string, number, duration or true/false); got %s", kindName(it)))
			return
		}
		s.Values = append(s.Values, it.Value)
	}
	f.Settings[k.Value] = s
}
