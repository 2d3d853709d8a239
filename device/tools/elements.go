package tools

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// element is one UI element as agents see it (android_ui_elements,
// android_observe, the element a targeted tap hit): bounds and center in
// device pixels of the current orientation, only the flags that are true,
// empty strings left out. Ref names it within its screen_id.
type element struct {
	Ref         string `json:"ref"`
	Class       string `json:"class,omitempty"`      // short name, e.g. "Button"
	ClassName   string `json:"class_name,omitempty"` // full name, e.g. "android.widget.Button"
	Text        string `json:"text,omitempty"`
	ContentDesc string `json:"content_desc,omitempty"`
	ResourceID  string `json:"resource_id,omitempty"`
	Bounds      [4]int `json:"bounds"` // x1, y1, x2, y2 (x2, y2 exclusive)
	Center      [2]int `json:"center"`

	Clickable     bool `json:"clickable,omitempty"`
	LongClickable bool `json:"long_clickable,omitempty"`
	Checkable     bool `json:"checkable,omitempty"`
	Checked       bool `json:"checked,omitempty"`
	Scrollable    bool `json:"scrollable,omitempty"`
	Editable      bool `json:"editable,omitempty"`
	Focused       bool `json:"focused,omitempty"`
	Selected      bool `json:"selected,omitempty"`
	Password      bool `json:"password,omitempty"`
	Disabled      bool `json:"disabled,omitempty"`
}

// Element filters of android_ui_elements (filter) and android_observe
// (elements).
const (
	filterMeaningful  = "meaningful"
	filterInteractive = "interactive"
	filterAll         = "all"
	filterNone        = "none" // android_observe only: no dump at all
)

// Element list bounds.
const (
	defaultMaxElements = 300
	maxElements        = 1000
)

// screen is one parsed UI tree with what agents address it by: its nodes
// in document order (ref "e<N>" is nodes[N]) and screen_id, a hash of the
// whole tree, so the same screen has the same id whatever the filter.
type screen struct {
	root  *parse.UINode
	nodes []parse.UINode
	id    string
}

func newScreen(root *parse.UINode) *screen {
	s := &screen{root: root, nodes: parse.Flatten(root)}
	s.id = screenID(root, s.nodes)
	return s
}

// screenID hashes what an agent can see and act on of every node (class,
// texts, id, bounds, state flags) and the rotation: equal trees, equal ids.
// 12 bytes of SHA-256 keep it short for a model and collisions out of reach.
func screenID(root *parse.UINode, nodes []parse.UINode) string {
	h := sha256.New()
	var buf [8]byte
	num := func(v int) {
		binary.LittleEndian.PutUint64(buf[:], uint64(int64(v)))
		h.Write(buf[:])
	}
	str := func(s string) {
		num(len(s))
		h.Write([]byte(s))
	}
	num(root.Rotation)
	for _, n := range nodes {
		num(n.Depth)
		str(n.Class)
		str(n.Package)
		str(n.Text)
		str(n.ContentDesc)
		str(n.ResourceID)
		num(n.Bounds.Left)
		num(n.Bounds.Top)
		num(n.Bounds.Right)
		num(n.Bounds.Bottom)
		var flags int
		for i, f := range []bool{n.Checkable, n.Checked, n.Clickable, n.Enabled, n.Focusable, n.Focused,
			n.Scrollable, n.LongClickable, n.Password, n.Selected} {
			if f {
				flags |= 1 << i
			}
		}
		num(flags)
	}
	return "s" + hex.EncodeToString(h.Sum(nil)[:12])
}

// ref is the ref of nodes[i].
func ref(i int) string { return "e" + strconv.Itoa(i) }

// refIndex parses a ref ("e12", or "@e12" as agents often write it).
func refIndex(r string) (int, bool) {
	r = strings.TrimPrefix(r, "@")
	n, ok := strings.CutPrefix(r, "e")
	if !ok || n == "" || len(n) > 6 {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	return i, err == nil && i >= 0
}

// editable: uiautomator has no attribute for it; text fields are
// EditText or a subclass, whose class names end so.
func editable(n *parse.UINode) bool {
	return strings.HasSuffix(n.Class, "EditText") || strings.HasSuffix(n.Class, "AutoCompleteTextView")
}

// interactive: an agent can act on it (and it is enabled).
func interactive(n *parse.UINode) bool {
	return n.Enabled && (n.Clickable || n.LongClickable || n.Checkable || n.Scrollable || editable(n))
}

// meaningful: it says something or can be acted on.
func meaningful(n *parse.UINode) bool {
	return n.Text != "" || n.ContentDesc != "" || n.ResourceID != "" ||
		n.Clickable || n.LongClickable || n.Checkable || n.Scrollable || n.Focusable || editable(n)
}

// element is nodes[i] as an agent sees it.
func (s *screen) element(i int) element {
	n := &s.nodes[i]
	short := n.Class
	if j := strings.LastIndexByte(short, '.'); j >= 0 {
		short = short[j+1:]
	}
	e := element{
		Ref: ref(i), Class: short, Text: n.Text, ContentDesc: n.ContentDesc, ResourceID: n.ResourceID,
		Bounds:    [4]int{n.Bounds.Left, n.Bounds.Top, n.Bounds.Right, n.Bounds.Bottom},
		Center:    [2]int{n.Center.X, n.Center.Y},
		Clickable: n.Clickable, LongClickable: n.LongClickable, Checkable: n.Checkable, Checked: n.Checked,
		Scrollable: n.Scrollable, Editable: editable(n), Focused: n.Focused, Selected: n.Selected,
		Password: n.Password, Disabled: !n.Enabled,
	}
	if short != n.Class {
		e.ClassName = n.Class
	}
	return e
}

// elements lists the nodes that pass filter (and belong to pkg when set),
// in document order, at most max; omitted counts those left out by max.
func (s *screen) elements(filter, pkg string, max int) (out []element, omitted int) {
	out = []element{}
	for i := range s.nodes {
		n := &s.nodes[i]
		if pkg != "" && n.Package != pkg {
			continue
		}
		switch filter {
		case filterInteractive:
			if !interactive(n) {
				continue
			}
		case filterAll:
		default:
			if !meaningful(n) {
				continue
			}
		}
		if len(out) >= max {
			omitted++
			continue
		}
		out = append(out, s.element(i))
	}
	return out, omitted
}
