package policy

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MarshalYAML writes a Duration as the file does ("30s", "1h30m0s").
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// YAML is the file in force as YAML, what it leaves unset left out, for
// an operator to read (the console's policy page); decoding it gives the
// same Config. Empty for a nil Config.
func (c *Config) YAML() (string, error) {
	if c == nil {
		return "", nil
	}
	var n yaml.Node
	if err := n.Encode(c.File); err != nil {
		return "", fmt.Errorf("config to YAML: %w", err)
	}
	prune(&n, true)
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return "", fmt.Errorf("config to YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("config to YAML: %w", err)
	}
	if s := b.String(); s != "{}\n" {
		return s, nil
	}
	return "", nil
}

// prune drops the mapping entries whose value is unset (null, "", 0s, an
// empty list or mapping; 0 too at the top, whose numbers are not pointers
// and 0 means unset), so only what the file says is shown. It reports
// whether n itself is then empty.
func prune(n *yaml.Node, top bool) (empty bool) {
	switch n.Kind {
	case yaml.MappingNode:
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			v := n.Content[i+1]
			if top && v.Kind == yaml.ScalarNode && v.Value == "0" {
				continue
			}
			if !prune(v, false) {
				kept = append(kept, n.Content[i], n.Content[i+1])
			}
		}
		n.Content = kept
		return len(kept) == 0
	case yaml.SequenceNode:
		for _, c := range n.Content {
			prune(c, false)
		}
		return len(n.Content) == 0
	case yaml.ScalarNode:
		return n.Tag == "!!null" || n.Value == "" || n.Value == "0s"
	}
	return false
}
