package policy

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MarshalYAML writes a Duration as the file does ("30s", "1h30m0s").
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// YAML is the file in force as YAML, for an operator to read (the
// console's policy page): what the file leaves unset is left out, what it
// sets is kept (an empty allow list, a pointer to 0 or false included), so
// parsing it gives the same File. Empty for a nil Config or an empty file.
func (c *Config) YAML() (string, error) {
	if c == nil {
		return "", nil
	}
	n, empty, err := yamlNode(reflect.ValueOf(c.File))
	if err != nil {
		return "", err
	}
	// The server settings first, in the file's order.
	keys := slices.SortedFunc(maps.Keys(c.File.Settings), func(a, b string) int {
		return c.File.Settings[a].Line - c.File.Settings[b].Line
	})
	var head []*yaml.Node
	for _, k := range keys {
		st := c.File.Settings[k]
		v := &yaml.Node{Kind: yaml.ScalarNode, Value: st.Values[0]}
		if st.List {
			v = &yaml.Node{Kind: yaml.SequenceNode}
			for _, x := range st.Values {
				v.Content = append(v.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: x})
			}
		}
		head = append(head, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
	}
	if empty && len(head) == 0 {
		return "", nil
	}
	if empty {
		n = &yaml.Node{Kind: yaml.MappingNode}
	}
	n.Content = append(head, n.Content...)
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return "", fmt.Errorf("config to YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("config to YAML: %w", err)
	}
	return b.String(), nil
}

// yamlNode encodes v as yaml's omitempty would, except that a set pointer
// is kept whatever it points to (in this file a pointer means "given"),
// and reports whether v is empty (to be left out of its parent).
func yamlNode(v reflect.Value) (n *yaml.Node, empty bool, err error) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil, true, nil
		}
		n, _, err := yamlNode(v.Elem())
		return n, false, err
	case reflect.Struct:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if !f.IsExported() || name == "" || name == "-" {
				continue
			}
			c, empty, err := yamlNode(v.Field(i))
			if err != nil {
				return nil, false, err
			}
			if !empty {
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, c)
			}
		}
		return n, len(n.Content) == 0, nil
	case reflect.Slice:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		if v.Len() == 0 {
			n.Style = yaml.FlowStyle
		}
		for i := range v.Len() {
			c, _, err := yamlNode(v.Index(i))
			if err != nil {
				return nil, false, err
			}
			n.Content = append(n.Content, c)
		}
		return n, v.Len() == 0, nil
	}
	n = &yaml.Node{}
	if err := n.Encode(v.Interface()); err != nil {
		return nil, false, fmt.Errorf("config to YAML: %w", err)
	}
	return n, v.IsZero(), nil
}
