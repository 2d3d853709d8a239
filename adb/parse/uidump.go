package parse

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Rect is a screen rectangle in device pixels; Right and Bottom are exclusive.
type Rect struct {
	Left   int `json:"left"`
	Top    int `json:"top"`
	Right  int `json:"right"`
	Bottom int `json:"bottom"`
}

// Center is the middle of r (where a tap on the element lands).
func (r Rect) Center() (x, y int) { return (r.Left + r.Right) / 2, (r.Top + r.Bottom) / 2 }

// Empty reports whether r has no area.
func (r Rect) Empty() bool { return r.Right <= r.Left || r.Bottom <= r.Top }

// Point is a screen position in device pixels.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// UINode is one element of a `uiautomator dump`. The root UIDump returns is
// the <hierarchy> element itself: Class "hierarchy", Rotation set, Order -1,
// its Children the top-level windows' nodes.
type UINode struct {
	// Order is the node's position in a pre-order walk of the tree (0 for
	// the first <node>); it is the stable index agents use. -1 for the root.
	Order int `json:"order"`
	// Index is the "index" attribute: position among its siblings.
	Index int `json:"index"`
	// Depth is 0 for top-level nodes.
	Depth int `json:"depth"`
	// Parent is the Order of the parent node, -1 for top-level nodes.
	Parent int `json:"parent"`

	Text        string `json:"text,omitempty"`
	ContentDesc string `json:"content_desc,omitempty"`
	ResourceID  string `json:"resource_id,omitempty"`
	Class       string `json:"class,omitempty"`
	Package     string `json:"package,omitempty"`
	Hint        string `json:"hint,omitempty"`
	Bounds      Rect   `json:"bounds"`
	Center      Point  `json:"center"`
	DisplayID   int    `json:"display_id,omitempty"`

	Checkable     bool `json:"checkable,omitempty"`
	Checked       bool `json:"checked,omitempty"`
	Clickable     bool `json:"clickable,omitempty"`
	Enabled       bool `json:"enabled,omitempty"`
	Focusable     bool `json:"focusable,omitempty"`
	Focused       bool `json:"focused,omitempty"`
	Scrollable    bool `json:"scrollable,omitempty"`
	LongClickable bool `json:"long_clickable,omitempty"`
	Password      bool `json:"password,omitempty"`
	Selected      bool `json:"selected,omitempty"`

	// Rotation is the <hierarchy rotation="N"> attribute (root only).
	Rotation int `json:"rotation,omitempty"`

	Children []*UINode `json:"children,omitempty"`
}

// Interactive reports whether an agent can act on the node directly.
func (n *UINode) Interactive() bool {
	return n.Clickable || n.LongClickable || n.Scrollable || n.Checkable || n.Focusable
}

// Limits that keep a hostile or broken dump from costing much.
const (
	maxUIDepth = 256
	maxUINodes = 50000
)

// UIDump parses the XML of `uiautomator dump` (Android 8-14, including the
// "drawing-order", "hint" and "display-id" attributes of newer releases).
// Text before the XML and after </hierarchy> is ignored, so output of
// `uiautomator dump /dev/tty` ending in "UI hierchary dumped to: /dev/tty"
// is accepted. Malformed XML or bounds, a missing <hierarchy>, or a tree
// deeper than 256 levels are errors.
func UIDump(data []byte) (*UINode, error) {
	start := bytes.Index(data, []byte("<hierarchy"))
	if start < 0 {
		// uiautomator explains failures in one line ("ERROR: could not get
		// idle state.", "ERROR: null root node returned by
		// UiTestAutomationBridge."); keep it for the caller.
		first, _, _ := strings.Cut(strings.TrimSpace(string(data[:min(len(data), 512)])), "\n")
		return nil, formatErr("uiautomator dump", "no <hierarchy> element in "+clip(first))
	}
	data = data[start:]
	if end := bytes.LastIndex(data, []byte("</hierarchy>")); end >= 0 {
		data = data[:end+len("</hierarchy>")]
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true

	var root *UINode
	var stack []*UINode
	order := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, formatErr("uiautomator dump", "xml: "+err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Local == "hierarchy" && root == nil:
				root = &UINode{Order: -1, Parent: -1, Depth: -1, Class: "hierarchy", Enabled: true}
				if v := attr(t, "rotation"); v != "" {
					r, err := strconv.Atoi(v)
					if err != nil || r < 0 || r > 3 {
						return nil, formatErr("uiautomator dump", "bad rotation "+clip(v))
					}
					root.Rotation = r
				}
				stack = append(stack, root)
			case t.Name.Local == "node" && len(stack) > 0:
				if len(stack) > maxUIDepth {
					return nil, formatErr("uiautomator dump", "tree deeper than "+strconv.Itoa(maxUIDepth))
				}
				if order >= maxUINodes {
					return nil, formatErr("uiautomator dump", "more than "+strconv.Itoa(maxUINodes)+" nodes")
				}
				parent := stack[len(stack)-1]
				n, err := newUINode(t, order, parent)
				if err != nil {
					return nil, err
				}
				order++
				parent.Children = append(parent.Children, n)
				stack = append(stack, n)
			default:
				return nil, formatErr("uiautomator dump", "unexpected element <"+clipName(t.Name.Local)+">")
			}
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, formatErr("uiautomator dump", "unbalanced </"+clipName(t.Name.Local)+">")
			}
			stack = stack[:len(stack)-1]
		}
	}
	if root == nil {
		return nil, formatErr("uiautomator dump", "no <hierarchy> element")
	}
	if len(stack) != 0 {
		return nil, formatErr("uiautomator dump", "truncated xml")
	}
	return root, nil
}

func clipName(s string) string {
	if len(s) > 32 {
		return s[:32]
	}
	return s
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func newUINode(t xml.StartElement, order int, parent *UINode) (*UINode, error) {
	n := &UINode{Order: order, Depth: parent.Depth + 1, Parent: parent.Order}
	seenBounds := false
	for _, a := range t.Attr {
		v := a.Value
		switch a.Name.Local {
		case "index":
			i, err := strconv.Atoi(v)
			if err != nil {
				return nil, formatErr("uiautomator dump", fmt.Sprintf("node %d: bad index %s", order, clip(v)))
			}
			n.Index = i
		case "text":
			n.Text = v
		case "content-desc":
			n.ContentDesc = v
		case "resource-id":
			n.ResourceID = v
		case "class":
			n.Class = v
		case "package":
			n.Package = v
		case "hint":
			n.Hint = v
		case "display-id":
			n.DisplayID, _ = strconv.Atoi(v)
		case "bounds":
			r, err := parseBounds(v)
			if err != nil {
				return nil, fmt.Errorf("parse uiautomator dump: node %d: %w", order, err)
			}
			n.Bounds, seenBounds = r, true
		case "checkable":
			n.Checkable = v == "true"
		case "checked":
			n.Checked = v == "true"
		case "clickable":
			n.Clickable = v == "true"
		case "enabled":
			n.Enabled = v == "true"
		case "focusable":
			n.Focusable = v == "true"
		case "focused":
			n.Focused = v == "true"
		case "scrollable":
			n.Scrollable = v == "true"
		case "long-clickable":
			n.LongClickable = v == "true"
		case "password":
			n.Password = v == "true"
		case "selected":
			n.Selected = v == "true"
		}
	}
	if !seenBounds {
		return nil, formatErr("uiautomator dump", fmt.Sprintf("node %d: no bounds", order))
	}
	x, y := n.Bounds.Center()
	n.Center = Point{X: x, Y: y}
	return n, nil
}

// parseBounds reads "[left,top][right,bottom]".
func parseBounds(s string) (Rect, error) {
	var r Rect
	rest, ok := strings.CutPrefix(s, "[")
	if !ok {
		return r, formatErr("bounds", clip(s))
	}
	a, rest, ok1 := strings.Cut(rest, "][")
	b, tail, ok2 := strings.Cut(rest, "]")
	if !ok1 || !ok2 || tail != "" {
		return r, formatErr("bounds", clip(s))
	}
	var err error
	if r.Left, r.Top, err = parsePair(a); err != nil {
		return Rect{}, formatErr("bounds", clip(s))
	}
	if r.Right, r.Bottom, err = parsePair(b); err != nil {
		return Rect{}, formatErr("bounds", clip(s))
	}
	return r, nil
}

func parsePair(s string) (int, int, error) {
	xs, ys, ok := strings.Cut(s, ",")
	if !ok {
		return 0, 0, ErrFormat
	}
	x, err1 := strconv.Atoi(xs)
	y, err2 := strconv.Atoi(ys)
	if err1 != nil || err2 != nil || x < -1<<20 || x > 1<<20 || y < -1<<20 || y > 1<<20 {
		return 0, 0, ErrFormat
	}
	return x, y, nil
}

// Flatten lists every node under root (root itself excluded when it is the
// <hierarchy> element) in pre-order, so result[i].Order == i for a tree from
// UIDump. The copies have no Children; use Parent and Depth for structure.
func Flatten(root *UINode) []UINode {
	if root == nil {
		return nil
	}
	var out []UINode
	stack := []*UINode{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Order >= 0 {
			c := *n
			c.Children = nil
			out = append(out, c)
		}
		for i := len(n.Children) - 1; i >= 0; i-- {
			stack = append(stack, n.Children[i])
		}
	}
	return out
}
