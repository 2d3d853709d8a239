package ui

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"io"
	"strconv"
	"strings"
)

// Element is a resolved UI element: what `uiautomator dump` prints and the
// renderer draws, plus the behaviour a tap triggers.
type Element struct {
	Class, ResourceID, Text, ContentDesc, Package, Hint string

	B                                               image.Rectangle
	Clickable, LongClickable, Scrollable, Focusable bool
	Focused, Checkable, Checked, Password, Selected bool
	Enabled                                         bool

	Color    color.RGBA
	HasColor bool
	Picture  string // generated content (Node.Picture)
	Key      string // state key: screen id + resource-id or tree path
	OnTap    *Action
	OnEnter  *Action
	Setting  string
	Field    bool // a text field (EditText)
	ContentH int  // scrollable: height of the content in portrait pixels
	Children []*Element
}

func (n *Element) Walk(f func(*Element) bool) bool {
	if !f(n) {
		return false
	}
	for _, c := range n.Children {
		if !c.Walk(f) {
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

// WriteDump writes the tree as `uiautomator dump` does (AccessibilityNode
// InfoDumper): one line, no trailing newline, attributes in this order.
//
// Android 11+ (extra set) appends drawing-order and hint.
func WriteDump(w io.Writer, root *Element, rotation int, extra bool) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"%d\">", rotation)
	var rec func(n *Element, idx, order int)
	rec = func(n *Element, idx, order int) {
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

// dumpFile is the shape of a `uiautomator dump` file as AOSP's
// AccessibilityNodeInfoDumper writes it (frameworks/base cmds/uiautomator
// .../AccessibilityNodeInfoDumper.java): a <hierarchy rotation> holding
// <node> elements whose attributes are the node's properties.
type dumpFile struct {
	Rotation int        `xml:"rotation,attr"`
	Nodes    []dumpNode `xml:"node"`
}

type dumpNode struct {
	Text          string     `xml:"text,attr"`
	ResourceID    string     `xml:"resource-id,attr"`
	Class         string     `xml:"class,attr"`
	Package       string     `xml:"package,attr"`
	ContentDesc   string     `xml:"content-desc,attr"`
	Hint          string     `xml:"hint,attr"`
	Bounds        string     `xml:"bounds,attr"`
	Checkable     bool       `xml:"checkable,attr"`
	Checked       bool       `xml:"checked,attr"`
	Clickable     bool       `xml:"clickable,attr"`
	Enabled       bool       `xml:"enabled,attr"`
	Focusable     bool       `xml:"focusable,attr"`
	Focused       bool       `xml:"focused,attr"`
	Scrollable    bool       `xml:"scrollable,attr"`
	LongClickable bool       `xml:"long-clickable,attr"`
	Password      bool       `xml:"password,attr"`
	Selected      bool       `xml:"selected,attr"`
	Nodes         []dumpNode `xml:"node"`
}

// ParseDump reads a `uiautomator dump` XML file from a real phone and
// returns its tree and its <hierarchy rotation>. Several top-level windows
// are wrapped in a synthetic root. The phone reads dumps with its own
// reader, never the host's parser, so the two can disagree and the tests
// that cross-check them mean something. Text around the XML (the tty
// variant's "UI hierchary dumped to: /dev/tty") is skipped.
func ParseDump(data []byte) (*Element, int, error) {
	start := bytes.Index(data, []byte("<hierarchy"))
	end := bytes.LastIndex(data, []byte("</hierarchy>"))
	if start < 0 || end < start {
		return nil, 0, fmt.Errorf("no <hierarchy> element in dump")
	}
	var f dumpFile
	if err := xml.Unmarshal(data[start:end+len("</hierarchy>")], &f); err != nil {
		return nil, 0, fmt.Errorf("dump: %w", err)
	}
	if f.Rotation < 0 || f.Rotation > 3 {
		return nil, 0, fmt.Errorf("dump: bad rotation %d", f.Rotation)
	}
	if len(f.Nodes) == 0 {
		return nil, 0, fmt.Errorf("no <node> in dump")
	}
	root, err := fromDump(&f.Nodes[0], 1)
	if err != nil {
		return nil, 0, err
	}
	for i := range f.Nodes[1:] {
		n, err := fromDump(&f.Nodes[i+1], 1)
		if err != nil {
			return nil, 0, err
		}
		root = &Element{Class: "android.widget.FrameLayout", Enabled: true, B: root.B.Union(n.B), Children: []*Element{root, n}}
	}
	return root, f.Rotation, nil
}

// maxDumpDepth bounds recursion over a scenario's dump file; real
// hierarchies are a few dozen levels deep.
const maxDumpDepth = 256

// fromDump converts a dump node and its subtree. Bounds are
// "[left,top][right,bottom]" (Rect.toShortString).
func fromDump(p *dumpNode, depth int) (*Element, error) {
	if depth > maxDumpDepth {
		return nil, fmt.Errorf("dump: tree deeper than %d", maxDumpDepth)
	}
	var l, t, r, b int
	if _, err := fmt.Sscanf(p.Bounds, "[%d,%d][%d,%d]", &l, &t, &r, &b); err != nil {
		return nil, fmt.Errorf("dump: bad bounds %q", p.Bounds)
	}
	n := &Element{
		Class: p.Class, ResourceID: p.ResourceID, Text: p.Text, ContentDesc: p.ContentDesc, Package: p.Package, Hint: p.Hint,
		B:         image.Rect(l, t, r, b),
		Clickable: p.Clickable, LongClickable: p.LongClickable, Scrollable: p.Scrollable, Focusable: p.Focusable,
		Focused: p.Focused, Checkable: p.Checkable, Checked: p.Checked, Password: p.Password, Selected: p.Selected,
		Enabled: p.Enabled,
	}
	n.Field = strings.Contains(n.Class, "EditText")
	for i := range p.Nodes {
		c, err := fromDump(&p.Nodes[i], depth+1)
		if err != nil {
			return nil, err
		}
		n.Children = append(n.Children, c)
	}
	return n, nil
}

// clone deep-copies the tree (dump screens are shared by devices).
func (n *Element) Clone() *Element {
	c := *n
	c.Children = make([]*Element, len(n.Children))
	for i, ch := range n.Children {
		c.Children[i] = ch.Clone()
	}
	return &c
}

// hit returns the deepest node containing p whose tap does something
// (clickable, a field, checkable, or with an action), searching children
// last-drawn first; nil when nothing actionable is there.
func Hit(n *Element, p image.Point) *Element {
	return deepestAt(n, p, func(n *Element) bool {
		return n.Enabled && (n.Clickable || n.Field || n.Checkable || n.OnTap != nil)
	})
}

// scrollerAt returns the deepest scrollable node containing p.
func ScrollerAt(n *Element, p image.Point) *Element {
	return deepestAt(n, p, func(n *Element) bool { return n.Scrollable })
}

// deepestAt returns the deepest node under n containing p for which match
// holds, searching children last-drawn first; nil when there is none.
func deepestAt(n *Element, p image.Point, match func(*Element) bool) *Element {
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

func ParseColor(s string) (color.RGBA, bool) {
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
