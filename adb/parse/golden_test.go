package parse

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/**/*.golden.json from the parsers' current output")

// goldenCase maps input files to the parser that reads them.
type goldenCase struct {
	glob  string
	parse func(in []byte) (any, error)
}

func str(f func(string) (any, error)) func([]byte) (any, error) {
	return func(b []byte) (any, error) { return f(string(b)) }
}

// goldenCases lists every golden family; the fuzz targets seed from the same
// files.
var goldenCases = []goldenCase{
	{"props/*.txt", str(func(s string) (any, error) { return Props(s) })},
	{"wm/size_*.txt", str(func(s string) (any, error) {
		v, err := WMSize(s)
		return struct {
			Size
			Effective Dim `json:"effective"`
		}{v, v.Effective()}, err
	})},
	{"wm/density_*.txt", str(func(s string) (any, error) { return WMDensity(s) })},
	{"battery/*.txt", str(func(s string) (any, error) { return Battery(s) })},
	{"package/*.txt", str(func(s string) (any, error) { return PackagePermissions(s) })},
	{"pminstall/*.txt", str(func(s string) (any, error) { return PMResult(s) })},
	{"notification/*.txt", str(func(s string) (any, error) { return Notifications(s) })},
	{"window/*.txt", str(func(s string) (any, error) { return Window(s) })},
	{"power/*.txt", str(func(s string) (any, error) { return Power(s) })},
	{"activity/*.txt", str(func(s string) (any, error) {
		p, a, err := TopActivity(s)
		return Component{Package: p, Activity: a}, err
	})},
	{"uidump/*.xml", func(b []byte) (any, error) { return UIDump(b) }},
	{"packages/list_*.txt", str(func(s string) (any, error) { return Packages(s) })},
	{"packages/pmpath_*.txt", str(func(s string) (any, error) { return PMPath(s) })},
	{"packages/resolve_*.txt", str(func(s string) (any, error) { return ResolveActivity(s) })},
	{"input/*.txt", str(func(s string) (any, error) { return InputRotation(s) })},
	{"logcat/*.txt", str(func(s string) (any, error) { return Logcat(s) })},
	{"screenstate/*.txt", str(func(s string) (any, error) {
		return struct {
			FocusedWindowSecure bool `json:"focused_window_secure"`
		}{FocusedWindowSecure(s)}, nil
	})},
	{"getevent/*.txt", str(func(s string) (any, error) {
		devs, err := Getevent(s)
		if err != nil {
			return nil, err
		}
		out := struct {
			Devices     []InputDevice `json:"devices"`
			Touchscreen *Touchscreen  `json:"touchscreen,omitempty"`
			NoTouch     string        `json:"no_touchscreen,omitempty"`
		}{Devices: devs}
		if ts, err := FindTouchscreen(devs); err != nil {
			out.NoTouch = err.Error()
		} else {
			out.Touchscreen = &ts
		}
		return out, nil
	})},
}

// golden is what a .golden.json file holds: the parsed value or the error.
type golden struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, gc := range goldenCases {
		files, err := filepath.Glob(filepath.Join("testdata", gc.glob))
		if err != nil || len(files) == 0 {
			t.Fatalf("no golden inputs for %s (%v)", gc.glob, err)
		}
		for _, in := range files {
			name := strings.TrimPrefix(filepath.ToSlash(in), "testdata/")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				data, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				v, perr := gc.parse(data)
				var g golden
				if perr != nil {
					g.Error = perr.Error()
				} else if g.Value, err = marshal(v); err != nil {
					t.Fatal(err)
				}
				got, err := marshal(g)
				if err != nil {
					t.Fatal(err)
				}
				path := strings.TrimSuffix(in, filepath.Ext(in)) + ".golden.json"
				testkit.Golden(t, path, got, *update)
			})
		}
	}
}

// marshal is indented JSON without HTML escaping, so goldens stay readable.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}

// seeds returns the golden inputs matching glob, for fuzz corpora.
func seeds(f *testing.F, glob string) [][]byte {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", glob))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds for %s", glob)
	}
	var out [][]byte
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}
