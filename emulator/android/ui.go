package android

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"io"
	"strconv"
	"strings"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// uiNode is a resolved UI element: what `uiautomator dump` prints and the
// renderer draws, plus the behaviour a tap triggers.
type uiNode struct {
	Class, ResourceID, Text, ContentDesc, Package, Hint string

	B                                               image.Rectangle
	Clickable, LongClickable, Scrollable, Focusable bool
	Focused, Checkable, Checked, Password, Selected bool
	Enabled                                         bool

	color    color.RGBA
	hasColor bool
	picture  string // generated content (Node.Picture)
	key      string // state key: screen id + resource-id or tree path
	onTap    *Action
	onEnter  *Action
	setting  string
	field    bool // a text field (EditText)
	contentH int  // scrollable: height of the content in portrait pixels
	Children []*uiNode
}

func (n *uiNode) walk(f func(*uiNode) bool) bool {
	if !f(n) {
		return false
	}
	for _, c := range n.Children {
		if !c.walk(f) {
			return false
		}
	}
	return true
}

// xmlEscape escapes like Android's XmlSerializer (KXmlSerializer) does in
// attribute values.
func xmlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\n':
			b.WriteString("&#10;")
		default:
			if r < 0x20 && r != '\t' {
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// writeDump writes the tree as `uiautomator dump` does (AccessibilityNode
// InfoDumper): one line, no trailing newline, attributes in this order.
//
// Android 11+ (extra set) appends drawing-order and hint.
func writeDump(w io.Writer, root *uiNode, rotation int, extra bool) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"%d\">", rotation)
	var rec func(n *uiNode, idx, order int)
	rec = func(n *uiNode, idx, order int) {
		text := n.Text
		if n.Password && text != "" {
			text = strings.Repeat("•", len([]rune(text)))
		}
		fmt.Fprintf(&b, `<node index="%d" text="%s" resource-id="%s" class="%s" package="%s" content-desc="%s" checkable="%t" checked="%t" clickable="%t" enabled="%t" focusable="%t" focused="%t" scrollable="%t" long-clickable="%t" password="%t" selected="%t" bounds="[%d,%d][%d,%d]"`,
			idx, xmlEscape(text), xmlEscape(n.ResourceID), xmlEscape(n.Class), xmlEscape(n.Package), xmlEscape(n.ContentDesc),
			n.Checkable, n.Checked, n.Clickable, n.Enabled, n.Focusable, n.Focused, n.Scrollable, n.LongClickable, n.Password, n.Selected,
			n.B.Min.X, n.B.Min.Y, n.B.Max.X, n.B.Max.Y)
		if extra {
			fmt.Fprintf(&b, ` drawing-order="%d" hint="%s"`, order, xmlEscape(n.Hint))
		}
		if len(n.Children) == 0 {
			b.WriteString(" />")
			return
		}
		b.WriteString(">")
		for i, c := range n.Children {
			rec(c, i, i+1)
		}
		b.WriteString("</node>")
	}
	if root != nil {
		rec(root, 0, 0)
	}
	b.WriteString("</hierarchy>")
	w.Write(b.Bytes())
}

// parseDump reads a `uiautomator dump` XML file from a real phone, with
// the host's parser (adb/parse.UIDump: its limits and strictness), and
// returns its tree and its <hierarchy rotation>. Several top-level windows
// are wrapped in a synthetic root.
func parseDump(data []byte) (*uiNode, int, error) {
	h, err := parse.UIDump(data)
	if err != nil {
		return nil, 0, err
	}
	if len(h.Children) == 0 {
		return nil, 0, fmt.Errorf("no <node> in dump")
	}
	root := fromParsed(h.Children[0])
	for _, w := range h.Children[1:] {
		n := fromParsed(w)
		root = &uiNode{Class: "android.widget.FrameLayout", Enabled: true, B: root.B.Union(n.B), Children: []*uiNode{root, n}}
	}
	return root, h.Rotation, nil
}

// fromParsed converts a parsed dump node and its subtree.
func fromParsed(p *parse.UINode) *uiNode {
	n := &uiNode{
		Class: p.Class, ResourceID: p.ResourceID, Text: p.Text, ContentDesc: p.ContentDesc, Package: p.Package, Hint: p.Hint,
		B:         image.Rect(p.Bounds.Left, p.Bounds.Top, p.Bounds.Right, p.Bounds.Bottom),
		Clickable: p.Clickable, LongClickable: p.LongClickable, Scrollable: p.Scrollable, Focusable: p.Focusable,
		Focused: p.Focused, Checkable: p.Checkable, Checked: p.Checked, Password: p.Password, Selected: p.Selected,
		Enabled: p.Enabled,
	}
	n.field = strings.Contains(n.Class, "EditText")
	for _, c := range p.Children {
		n.Children = append(n.Children, fromParsed(c))
	}
	return n
}

// clone deep-copies the tree (dump screens are shared by devices).
func (n *uiNode) clone() *uiNode {
	c := *n
	c.Children = make([]*uiNode, len(n.Children))
	for i, ch := range n.Children {
		c.Children[i] = ch.clone()
	}
	return &c
}

// hit returns the deepest node containing p whose tap does something
// (clickable, a field, checkable, or with an action), searching children
// last-drawn first; nil when nothing actionable is there.
func hit(n *uiNode, p image.Point) *uiNode {
	return deepestAt(n, p, func(n *uiNode) bool {
		return n.Enabled && (n.Clickable || n.field || n.Checkable || n.onTap != nil)
	})
}

// scrollerAt returns the deepest scrollable node containing p.
func scrollerAt(n *uiNode, p image.Point) *uiNode {
	return deepestAt(n, p, func(n *uiNode) bool { return n.Scrollable })
}

// deepestAt returns the deepest node under n containing p for which match
// holds, searching children last-drawn first; nil when there is none.
func deepestAt(n *uiNode, p image.Point, match func(*uiNode) bool) *uiNode {
	if !p.In(n.B) {
		return nil
	}
	for i := len(n.Children) - 1; i >= 0; i-- {
		if h := deepestAt(n.Children[i], p, match); h != nil {
			return h
		}
	}
	if match(n) {
		return n
	}
	return nil
}

func parseColor(s string) (color.RGBA, bool) {
	s = strings.TrimPrefix(s, "#")
	if len(s) != 6 {
		return color.RGBA{}, false
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return color.RGBA{}, false
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}, true
}
