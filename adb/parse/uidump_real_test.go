package parse

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realDumps are the uiautomator dumps captured on real devices and
// emulators by others and published (testdata/SOURCES.md names each). The
// parsed trees are pinned by TestGolden (uidump/*.golden.json); these tests
// add the properties a golden file cannot show at a glance.
var realDumps = []struct {
	file     string
	nodes    int    // <node> elements in the file
	rotation int    // <hierarchy rotation>
	naf      int    // nodes carrying NAF="true" (parsed like any other node)
	text     string // a text that must come through byte for byte
}{
	{"wework_cjk_naf.xml", 41, 0, 1, "为对方添加备注"},
	{"wework_207_nodes.xml", 207, 0, 5, "消息"},
	{"bluestacks_rotation1_portrait.xml", 126, 1, 3, ""},
	{"prefix_dumped_to.xml", 10, 0, 0, "当前群聊人数较多。为减少打扰，对方同意后才会进入群聊，现在邀请？"},
	{"bom.xml", 12, 0, 0, "OK"},
	{"androidtv_philo_search.xml", 136, 0, 2, "SPACE"},
	{"car_ivi_korean.xml", 48, 0, 5, "터널 진입"},
	{"landscape_rotation1_cjk.xml", 52, 1, 3, "GPU 识别（高性能设备）"},
}

func readDump(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "uidump", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUIDumpReal(t *testing.T) {
	t.Parallel()
	for _, tc := range realDumps {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data := readDump(t, tc.file)
			root, err := UIDump(data)
			if err != nil {
				t.Fatal(err)
			}
			if root.Rotation != tc.rotation {
				t.Errorf("rotation %d, want %d", root.Rotation, tc.rotation)
			}
			nodes := Flatten(root)
			if len(nodes) != tc.nodes || strings.Count(string(data), "<node ") != tc.nodes {
				t.Errorf("%d nodes parsed, want %d", len(nodes), tc.nodes)
			}
			if got := strings.Count(string(data), `NAF="true"`); got != tc.naf {
				t.Errorf("%d NAF nodes in the file, want %d", got, tc.naf)
			}
			checkTree(t, root, nodes)
			if tc.text != "" && !hasText(nodes, tc.text) {
				t.Errorf("no node has text %q", tc.text)
			}
		})
	}
}

// checkTree asserts what every tree from a real dump satisfies: Flatten is
// the pre-order walk (Order == position, parents before children, Depth one
// more than the parent's), each Center is the middle of its Bounds, and
// each node lies inside its window (its top-level ancestor), which
// uiautomator guarantees by clipping bounds to what is visible.
func checkTree(t *testing.T, root *UINode, nodes []UINode) {
	t.Helper()
	if root.Order != -1 || root.Class != "hierarchy" || root.Depth != -1 {
		t.Fatalf("root = %+v", root)
	}
	window := make([]Rect, len(nodes))
	for i, n := range nodes {
		if n.Order != i {
			t.Fatalf("Flatten()[%d].Order = %d", i, n.Order)
		}
		if n.Bounds.Right < n.Bounds.Left || n.Bounds.Bottom < n.Bounds.Top {
			t.Errorf("node %d: inverted bounds %+v", i, n.Bounds)
		}
		if x, y := n.Bounds.Center(); n.Center != (Point{x, y}) {
			t.Errorf("node %d: center %+v of %+v", i, n.Center, n.Bounds)
		}
		switch {
		case n.Parent == -1:
			if n.Depth != 0 {
				t.Errorf("top-level node %d at depth %d", i, n.Depth)
			}
			window[i] = n.Bounds
		case n.Parent < 0 || n.Parent >= i:
			t.Fatalf("node %d: parent %d not before it", i, n.Parent)
		default:
			if p := nodes[n.Parent]; n.Depth != p.Depth+1 {
				t.Errorf("node %d: depth %d under a parent at %d", i, n.Depth, p.Depth)
			}
			window[i] = window[n.Parent]
			if !inside(n.Bounds, window[i]) {
				t.Errorf("node %d: bounds %+v outside its window %+v", i, n.Bounds, window[i])
			}
		}
	}
}

func inside(r, w Rect) bool {
	return r.Left >= w.Left && r.Top >= w.Top && r.Right <= w.Right && r.Bottom <= w.Bottom
}

func hasText(nodes []UINode, s string) bool {
	for _, n := range nodes {
		if n.Text == s {
			return true
		}
	}
	return false
}

// TestUIDumpRealUnusable: what uiautomator prints when the low-memory
// killer ends it mid-dump is a bare "Killed"; there is no tree to return,
// and the error says what came back instead.
func TestUIDumpRealUnusable(t *testing.T) {
	t.Parallel()
	_, err := UIDump(readDump(t, "killed.xml"))
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), `"Killed"`) {
		t.Fatalf("err = %v, want ErrFormat quoting Killed", err)
	}
}

// TestUIDumpRealPrefixes: the bytes before the XML (a UTF-8 byte order
// mark, the "UI hierchary dumped to:" line `uiautomator dump FILE && cat
// FILE` prints first) and after it change nothing in the tree.
func TestUIDumpRealPrefixes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"bom.xml", "prefix_dumped_to.xml"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := readDump(t, name)
			i := strings.Index(string(data), "<?xml")
			if i <= 0 {
				t.Fatalf("fixture has nothing before <?xml")
			}
			want, err := UIDump(data[i:])
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range [][]byte{data, append(append([]byte{}, data...), "\nUI hierchary dumped to: /dev/tty\n"...)} {
				got, err := UIDump(in)
				if err != nil {
					t.Fatal(err)
				}
				a, _ := marshal(got)
				b, _ := marshal(want)
				if string(a) != string(b) {
					t.Errorf("prefix or trailer changed the tree")
				}
			}
		})
	}
}
