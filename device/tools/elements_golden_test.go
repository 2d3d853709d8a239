package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

var updateGoldens = flag.Bool("update", false, "rewrite testdata/elements/*.golden.json from the current element lists")

// realDumps are the adb/parse fixtures captured on real devices and
// emulators (their testdata/SOURCES.md says where each comes from), with a
// selector per dump that names something on that screen.
var realDumps = []struct {
	file string
	// natural is the display size in its natural orientation (as wm size
	// prints it) where the dump shows it (a full-screen window); zero when
	// it does not.
	natural [2]int
	sels    []goldenSelector
}{
	{
		file: "wework_cjk_naf.xml", natural: [2]int{720, 1608},
		sels: []goldenSelector{
			{sel: selector{Text: "为对方添加备注"}, ref: "e14"},
			{sel: selector{Text: "添加企业", Match: matchContains}, ref: "e25"},
			{sel: selector{ResourceID: "com.tencent.wework:id/ngl"}, ref: "e10"}, // the NAF back button
			{sel: selector{Text: "备注", Match: matchContains}, code: codeElementAmbiguous},
		},
	},
	{
		file: "wework_207_nodes.xml", natural: [2]int{720, 1608},
		sels: []goldenSelector{
			// "消息" (Messages) is the title and a bottom tab.
			{sel: selector{Text: "消息"}, code: codeElementAmbiguous},
			{sel: selector{Text: "消息", Index: selIndex(1)}, ref: "e148"},
			{sel: selector{Text: "日程", Match: matchContains}, ref: "e46"},
			{sel: selector{ResourceID: "czy"}, ref: "e31"}, // the message list, by its short id
		},
	},
	{
		// BlueStacks' natural orientation is landscape: rotation 1 is a
		// portrait screen, and its bounds are portrait.
		file: "bluestacks_rotation1_portrait.xml", natural: [2]int{1920, 1080},
		sels: []goldenSelector{
			{sel: selector{ResourceID: "net.spotlightlabs.spotlight:id/clMain"}, ref: "e6"},
		},
	},
	{
		file: "prefix_dumped_to.xml",
		sels: []goldenSelector{
			{sel: selector{Text: "邀请"}, ref: "e9"},
			{sel: selector{Text: "现在邀请", Match: matchContains}, ref: "e6"},
			{sel: selector{Text: "取消"}, ref: "e8"},
		},
	},
	{
		// A TV: landscape is its natural orientation, D-pad focus is on a
		// tab, and the on-screen keyboard's keys are one-letter texts.
		file: "androidtv_philo_search.xml", natural: [2]int{1920, 1080},
		sels: []goldenSelector{
			{sel: selector{Text: "a"}, ref: "e13"},
			{sel: selector{Text: "a", Match: matchContains}, code: codeElementAmbiguous},
			{sel: selector{ContentDesc: "backspace"}, ref: "e52"},
			{sel: selector{ContentDesc: "ALF: The Animated Series"}, ref: "e59"},
			{sel: selector{ResourceID: "tab_search"}, ref: "e130"},
		},
	},
	{
		// A car head unit: one window that does not start at the origin,
		// Korean labels beside unlabelled (NAF) Compose switches.
		file: "car_ivi_korean.xml",
		sels: []goldenSelector{
			{sel: selector{Text: "터널 진입"}, ref: "e37"},
			{sel: selector{Text: "자동 건조", Match: matchContains}, ref: "e46"},
			{sel: selector{Text: "공조"}, ref: "e21"},
			{sel: selector{Text: "^공조", Match: matchRegex}, code: codeElementAmbiguous},
		},
	},
	{
		// A phone turned to landscape: rotation 1 and landscape bounds.
		// "暂停" (Pause) sits in a disabled button; the text node itself is
		// enabled, as uiautomator reports it.
		file: "landscape_rotation1_cjk.xml", natural: [2]int{1272, 2800},
		sels: []goldenSelector{
			{sel: selector{Text: "暂停"}, ref: "e15"},
			{sel: selector{Text: "GPU 识别", Match: matchContains}, ref: "e30"},
			{sel: selector{Text: `^(开始|停止)$`, Match: matchRegex, Index: selIndex(1)}, ref: "e18"},
		},
	},
	{
		file: "bom.xml",
		sels: []goldenSelector{
			{sel: selector{Text: "OK"}, ref: "e11"},
			{sel: selector{ResourceID: "android:id/button1"}, ref: "e11"},
			{sel: selector{Text: "BFASTERR411", Match: matchContains}, ref: "e8"},
		},
	},
}

// goldenSelector is a selector and what it resolves to: ref, or the code of
// the *elementError.
type goldenSelector struct {
	sel  selector
	ref  string
	code string
}

// goldenElements is what a testdata/elements golden file holds.
type goldenElements struct {
	ScreenID string    `json:"screen_id"`
	Omitted  int       `json:"omitted"`
	Elements []element `json:"elements"`
}

func TestElementsGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range realDumps {
		name := strings.TrimSuffix(tc.file, ".xml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := loadScreen(t, tc.file)
			if again := loadScreen(t, tc.file); again.id != s.id {
				t.Errorf("two parses of one dump, screen_ids %s and %s", s.id, again.id)
			}
			for _, filter := range []string{filterMeaningful, filterInteractive, filterAll} {
				els, omitted := s.elements(filter, "", defaultMaxElements)
				checkElements(t, s, els)
				got, err := marshalIndent(goldenElements{ScreenID: s.id, Omitted: omitted, Elements: els})
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", "elements", name+"."+filter+".golden.json")
				testkit.Golden(t, path, got, *updateGoldens)
			}
			if tc.natural != [2]int{} {
				g := s.geometry(adbScreen(tc.natural[0], tc.natural[1], 0))
				if w := windowExtent(s); g.Width != w[0] || g.Height != w[1] {
					t.Errorf("geometry %dx%d, but the windows span %dx%d", g.Width, g.Height, w[0], w[1])
				}
			}
		})
	}
}

// checkElements: refs come in document order and each element describes
// the node its ref names (e<N> is nodes[N]), which is what lets an agent
// act on a ref it read.
func checkElements(t *testing.T, s *screen, els []element) {
	t.Helper()
	last := -1
	for _, e := range els {
		i, ok := refIndex(e.Ref)
		if !ok || i <= last || i >= len(s.nodes) {
			t.Fatalf("ref %s out of order or range (after e%d of %d)", e.Ref, last, len(s.nodes))
		}
		last = i
		n := &s.nodes[i]
		if e.Text != n.Text || e.ResourceID != n.ResourceID || e.Bounds != [4]int{n.Bounds.Left, n.Bounds.Top, n.Bounds.Right, n.Bounds.Bottom} {
			t.Errorf("%s does not describe node %d", e.Ref, i)
		}
	}
}

// windowExtent is the right and bottom edge of the furthest window.
func windowExtent(s *screen) [2]int {
	var w [2]int
	for _, n := range s.root.Children {
		w[0], w[1] = max(w[0], n.Bounds.Right), max(w[1], n.Bounds.Bottom)
	}
	return w
}

func selIndex(i int) *int { return &i }

func TestResolveRealDumps(t *testing.T) {
	t.Parallel()
	for _, tc := range realDumps {
		s := loadScreen(t, tc.file)
		for _, gs := range tc.sels {
			t.Run(fmt.Sprintf("%s/%s%s%s/%s", strings.TrimSuffix(tc.file, ".xml"), gs.sel.Text, gs.sel.ResourceID, gs.sel.ContentDesc, gs.sel.Match), func(t *testing.T) {
				t.Parallel()
				c, err := gs.sel.compile("")
				if err != nil {
					t.Fatal(err)
				}
				i, err := s.resolve(c, nil)
				var ee *elementError
				switch {
				case gs.code != "" && (!errors.As(err, &ee) || ee.Code != gs.code):
					t.Fatalf("err = %v, want %s", err, gs.code)
				case gs.code != "":
					return
				case err != nil:
					t.Fatal(err)
				case ref(i) != gs.ref:
					t.Fatalf("resolved to %s (%q), want %s", ref(i), s.nodes[i].Text, gs.ref)
				}
				// A ref from this screen resolves to itself.
				c, err = selector{Ref: ref(i), ScreenID: s.id}.compile("")
				if err != nil {
					t.Fatal(err)
				}
				if j, err := s.resolve(c, nil); err != nil || j != i {
					t.Fatalf("ref %s resolved to %d, %v", ref(i), j, err)
				}
			})
		}
	}
}

// marshalIndent is indented JSON without HTML escaping, so CJK and "<"
// stay readable in goldens.
func marshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}

// synthetic2000 is OUR dump, not a capture: no public dump of 2,000 nodes
// was found, so this builds one the way uiautomator prints a long chat
// list (attribute order and row layout of the WeCom message list in
// wework_207_nodes.xml): a root, a RecyclerView, and 333 rows of six nodes
// (row, avatar, text column, name, last message, time), 2,000 nodes in all,
// with Chinese text and a NAF avatar in every row.
func synthetic2000() []byte {
	const rows, cols = 333, 9
	var b bytes.Buffer
	b.WriteString(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">`)
	node := func(naf bool, index int, text, id, class, bounds string, clickable, scrollable bool) {
		if naf {
			b.WriteString(`<node NAF="true" `)
		} else {
			b.WriteString(`<node `)
		}
		fmt.Fprintf(&b, `index="%d" text="%s" resource-id="%s" class="%s" package="com.tencent.wework" content-desc="" checkable="false" checked="false" clickable="%t" enabled="true" focusable="%t" focused="false" scrollable="%t" long-clickable="%t" password="false" selected="false" bounds="%s"`,
			index, text, id, class, clickable, clickable || scrollable, scrollable, clickable, bounds)
	}
	node(false, 0, "", "", "android.widget.FrameLayout", "[0,0][720,1608]", false, false)
	b.WriteString(`>`)
	node(false, 0, "", "com.tencent.wework:id/czy", "androidx.recyclerview.widget.RecyclerView", "[0,172][720,1495]", false, true)
	b.WriteString(`>`)
	for r := range rows {
		// Rows tile the list 9 across so every node stays inside it.
		x, y := (r%cols)*80, 172+(r/cols)*35
		box := func(dx1, dy1, dx2, dy2 int) string {
			return fmt.Sprintf("[%d,%d][%d,%d]", x+dx1, y+dy1, x+dx2, y+dy2)
		}
		node(false, r, "", "com.tencent.wework:id/gj0", "android.widget.RelativeLayout", box(0, 0, 80, 35), true, false)
		b.WriteString(`>`)
		node(true, 0, "", "com.tencent.wework:id/gcz", "android.widget.ImageView", box(2, 2, 20, 20), true, false)
		b.WriteString(`/>`)
		node(false, 1, "", "", "android.widget.LinearLayout", box(22, 2, 78, 33), false, false)
		b.WriteString(`>`)
		node(false, 0, fmt.Sprintf("客户群%d", r), "com.tencent.wework:id/k0c", "android.widget.TextView", box(22, 2, 60, 14), false, false)
		b.WriteString(`/>`)
		node(false, 1, fmt.Sprintf("[%d条] 收到，明天见 &amp; 谢谢", r%9+1), "com.tencent.wework:id/iiy", "android.widget.TextView", box(22, 16, 78, 30), false, false)
		b.WriteString(`/>`)
		node(false, 2, "上午9:4"+fmt.Sprint(r%10), "com.tencent.wework:id/mhc", "android.widget.TextView", box(60, 2, 78, 14), false, false)
		b.WriteString(`/></node></node>`)
	}
	b.WriteString(`</node></node></hierarchy>`)
	return b.Bytes()
}

func TestElementsSynthetic2000(t *testing.T) {
	t.Parallel()
	root, err := parse.UIDump(synthetic2000())
	if err != nil {
		t.Fatal(err)
	}
	s := newScreen(root)
	if len(s.nodes) != 2000 {
		t.Fatalf("%d nodes", len(s.nodes))
	}
	for _, tc := range []struct {
		filter            string
		max, n, omitted   int
		firstRef, lastRef string
	}{
		// Meaningful: the list and five of each row's six nodes (not the
		// text column), 1 + 5*333 = 1666. Row r is e(2+6r)..e(7+6r), so the
		// 1,000th is row 199's message (e1200), the 300th row 59's (e360).
		{filterMeaningful, maxElements, 1000, 666, "e1", "e1200"},
		{filterMeaningful, defaultMaxElements, 300, 1366, "e1", "e360"},
		// The list, each row and each (clickable) avatar.
		{filterInteractive, maxElements, 667, 0, "e1", "e1995"},
		{filterAll, maxElements, 1000, 1000, "e0", "e999"},
	} {
		els, omitted := s.elements(tc.filter, "", tc.max)
		if len(els) != tc.n || omitted != tc.omitted || els[0].Ref != tc.firstRef || els[len(els)-1].Ref != tc.lastRef {
			t.Errorf("%s max %d: %d elements %s..%s, %d omitted; want %d %s..%s, %d",
				tc.filter, tc.max, len(els), els[0].Ref, els[len(els)-1].Ref, omitted, tc.n, tc.firstRef, tc.lastRef, tc.omitted)
		}
		checkElements(t, s, els)
	}
	c, err := selector{Text: "客户群332"}.compile("")
	if err != nil {
		t.Fatal(err)
	}
	if i, err := s.resolve(c, nil); err != nil || ref(i) != "e1997" {
		t.Errorf("客户群332 resolved to %s, %v", ref(i), err)
	}
	again, err := parse.UIDump(synthetic2000())
	if err != nil {
		t.Fatal(err)
	}
	if newScreen(again).id != s.id {
		t.Error("two parses of one dump, two screen_ids")
	}
}

// BenchmarkElements2000 is one android_ui_elements call's CPU work on a
// 2,000-node screen: parse the dump, index it (screen_id), list the
// default filter.
func BenchmarkElements2000(b *testing.B) {
	data := synthetic2000()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		root, err := parse.UIDump(data)
		if err != nil {
			b.Fatal(err)
		}
		s := newScreen(root)
		if els, _ := s.elements(filterMeaningful, "", defaultMaxElements); len(els) == 0 {
			b.Fatal("no elements")
		}
	}
}

// BenchmarkElementsReal207 is the same on the biggest real dump found.
func BenchmarkElementsReal207(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "adb", "parse", "testdata", "uidump", "wework_207_nodes.xml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		root, err := parse.UIDump(data)
		if err != nil {
			b.Fatal(err)
		}
		if els, _ := newScreen(root).elements(filterMeaningful, "", defaultMaxElements); len(els) == 0 {
			b.Fatal("no elements")
		}
	}
}
