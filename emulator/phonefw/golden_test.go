package phonefw

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestHelperTreeGolden: the helper's TREE of a screen is byte for byte the
// `uiautomator dump` a real phone wrote for it. The fake framework serves
// each real capture's nodes (their properties, not their XML: NAF marks
// are dropped and recomputed by the helper), and the helper must write the
// capture back: attribute order, escapes, the NAF rule, drawing-order and
// hint from Android 11. The captures are adb/parse's real-device fixtures
// (their sources in adb/parse/testdata/SOURCES.md).
func TestHelperTreeGolden(t *testing.T) {
	cases := []struct {
		file string
		sdks []int // levels whose dumper wrote this format
	}{
		{"wework_cjk_naf.xml", []int{29}},
		{"wework_207_nodes.xml", []int{29}},
		{"bluestacks_rotation1_portrait.xml", []int{29}},
		{"androidtv_philo_search.xml", []int{29}},
		{"car_ivi_korean.xml", []int{29}},
		{"landscape_rotation1_cjk.xml", []int{33, 34}},
	}
	bySDK := map[int][]string{}
	for _, c := range cases {
		for _, s := range c.sdks {
			bySDK[s] = append(bySDK[s], c.file)
		}
	}
	for _, sdk := range Modeled {
		t.Run(fmt.Sprint("sdk", sdk), func(t *testing.T) {
			p := &canned{}
			c := start(t, sdk, p)
			c.hello()
			for _, f := range bySDK[sdk] {
				want, err := os.ReadFile("../../adb/parse/testdata/uidump/" + f)
				if err != nil {
					t.Fatal(err)
				}
				w, h, rot := displayOf(t, want)
				p.mu.Lock()
				p.dump = []byte(strings.ReplaceAll(string(want), ` NAF="true"`, ""))
				p.w, p.h, p.rot = w, h, rot
				p.mu.Unlock()
				body, code, msg := c.call(2, uint32(0), uint32(100))
				if code != "" {
					t.Fatalf("%s: TREE %s %s", f, code, msg)
				}
				d := decoder{b: body}
				n, got := d.u32(), d.str()
				if got != string(want) {
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					t.Fatalf("%s: helper tree differs from the real dump at byte %d:\n got …%s\nwant …%s", f, i, clip(got, i), clip(string(want), i))
				}
				if wantN := strings.Count(string(want), "<node "); n != wantN {
					t.Fatalf("%s: node_count %d, want %d", f, n, wantN)
				}
			}
		})
	}
}

func clip(s string, i int) string {
	lo, hi := max(0, i-80), min(len(s), i+120)
	return s[lo:hi]
}

var boundsRE = regexp.MustCompile(`bounds="\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]"`)

// displayOf returns a display that holds every node (clipping to it changes
// nothing, as the dump was clipped already) and the dump's rotation.
func displayOf(t *testing.T, xml []byte) (w, h, rot int) {
	for _, m := range boundsRE.FindAllStringSubmatch(string(xml), -1) {
		r, _ := strconv.Atoi(m[3])
		b, _ := strconv.Atoi(m[4])
		w, h = max(w, r), max(h, b)
	}
	m := regexp.MustCompile(`rotation="(\d)"`).FindStringSubmatch(string(xml))
	if m == nil {
		t.Fatal("no rotation")
	}
	rot, _ = strconv.Atoi(m[1])
	return w, h, rot
}
