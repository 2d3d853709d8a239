package parse

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Table tests for edge cases the goldens do not cover; every error case must
// wrap ErrFormat or ErrNotFound.

func TestErrorsWrapSentinels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func() error
		want error
	}{
		{"props empty", func() error { _, err := Props(""); return err }, ErrFormat},
		{"props unterminated", func() error { _, err := Props("[a]: [b\nc"); return err }, ErrFormat},
		{"wm size missing", func() error { _, err := WMSize("Error: no display"); return err }, ErrFormat},
		{"wm size bad", func() error { _, err := WMSize("Physical size: 1080by2340"); return err }, ErrFormat},
		{"wm size zero", func() error { _, err := WMSize("Physical size: 0x2340"); return err }, ErrFormat},
		{"wm density bad", func() error { _, err := WMDensity("Physical density: x"); return err }, ErrFormat},
		{"battery no header", func() error { _, err := Battery("level: 5"); return err }, ErrFormat},
		{"battery no level", func() error { _, err := Battery("Current Battery Service state:\n  status: 2\n"); return err }, ErrFormat},
		{"battery bad level", func() error { _, err := Battery("Current Battery Service state:\n  level: x\n"); return err }, ErrFormat},
		{"window empty", func() error { _, err := Window("Can't find service: window"); return err }, ErrFormat},
		{"power empty", func() error { _, err := Power(""); return err }, ErrFormat},
		{"power unknown wakefulness", func() error { _, err := Power("mWakefulness=Sideways"); return err }, ErrFormat},
		{"activity no field", func() error { _, _, err := TopActivity("nothing"); return err }, ErrFormat},
		{"activity null", func() error { _, _, err := TopActivity("  mResumedActivity: null"); return err }, ErrNotFound},
		{"uidump empty", func() error { _, err := UIDump(nil); return err }, ErrFormat},
		{"uidump no bounds", func() error { _, err := UIDump([]byte(`<hierarchy><node index="0"/></hierarchy>`)); return err }, ErrFormat},
		{"uidump bad index", func() error {
			_, err := UIDump([]byte(`<hierarchy><node index="x" bounds="[0,0][1,1]"/></hierarchy>`))
			return err
		}, ErrFormat},
		{"uidump bad rotation", func() error { _, err := UIDump([]byte(`<hierarchy rotation="7"></hierarchy>`)); return err }, ErrFormat},
		{"uidump foreign element", func() error { _, err := UIDump([]byte(`<hierarchy><div/></hierarchy>`)); return err }, ErrFormat},
		{"uidump too deep", func() error {
			s := `<hierarchy>` + strings.Repeat(`<node bounds="[0,0][1,1]">`, maxUIDepth+1) +
				strings.Repeat(`</node>`, maxUIDepth+1) + `</hierarchy>`
			_, err := UIDump([]byte(s))
			return err
		}, ErrFormat},
		{"uidump ERROR line", func() error {
			_, err := UIDump([]byte("ERROR: null root node returned by UiTestAutomationBridge.\n"))
			return err
		}, ErrFormat},
		{"packages error line", func() error { _, err := Packages("cmd: Failure calling service package: Broken pipe (32)"); return err }, ErrFormat},
		{"packages bad name", func() error { _, err := Packages("package:/data/app/x.apk="); return err }, ErrFormat},
		{"pm path none", func() error { _, err := PMPath(""); return err }, ErrNotFound},
		{"pm path junk", func() error { _, err := PMPath("Error: package not found"); return err }, ErrFormat},
		{"resolve empty", func() error { _, err := ResolveActivity("\n"); return err }, ErrFormat},
		{"resolve none", func() error { _, err := ResolveActivity("No activity found\n"); return err }, ErrNotFound},
		{"resolve junk", func() error { _, err := ResolveActivity("priority=0 preferredOrder=0"); return err }, ErrFormat},
		{"logcat junk", func() error { _, err := Logcat("hello\nworld\n"); return err }, ErrFormat},
		{"component junk", func() error { _, err := ParseComponent("no slash"); return err }, ErrFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.run()
			if !errors.Is(err, tt.want) {
				t.Fatalf("got error %v, want one wrapping %v", err, tt.want)
			}
		})
	}
}

func TestSizeHelpers(t *testing.T) {
	t.Parallel()
	s := Size{Physical: &Dim{1080, 2340}, Override: &Dim{720, 1560}}
	if got := s.Effective(); got != (Dim{720, 1560}) {
		t.Errorf("Effective = %v", got)
	}
	if got := s.Rotated(1); got != (Dim{1560, 720}) {
		t.Errorf("Rotated(1) = %v", got)
	}
	if got := (Size{}).Effective(); got != (Dim{}) {
		t.Errorf("zero Effective = %v", got)
	}
	if got := (Density{Physical: 440}).Effective(); got != 440 {
		t.Errorf("density Effective = %d", got)
	}
	if got := (BatteryState{Level: 50, Scale: 200}).Percent(); got != 25 {
		t.Errorf("Percent = %d", got)
	}
}

func TestComponent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		want  Component
		short string
	}{
		{"com.android.settings/.Settings", Component{"com.android.settings", "com.android.settings.Settings"}, "com.android.settings/.Settings"},
		{"com.android.chrome/com.google.android.apps.chrome.Main", Component{"com.android.chrome", "com.google.android.apps.chrome.Main"}, "com.android.chrome/com.google.android.apps.chrome.Main"},
		{"a.b/Outer$Inner", Component{"a.b", "Outer$Inner"}, "a.b/Outer$Inner"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseComponent(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.String() != tt.short {
				t.Errorf("String() = %q, want %q", got.String(), tt.short)
			}
		})
	}
}

func TestFlatten(t *testing.T) {
	t.Parallel()
	root, err := UIDump([]byte(`<hierarchy rotation="3"><node index="0" bounds="[0,0][100,100]"><node index="0" text="a" bounds="[0,0][50,50]"/><node index="1" text="b" clickable="true" bounds="[50,50][100,100]"><node index="0" text="c" bounds="[60,60][70,70]"/></node></node><node index="0" text="d" bounds="[0,0][10,20]"/></hierarchy>`))
	if err != nil {
		t.Fatal(err)
	}
	if root.Rotation != 3 {
		t.Errorf("rotation = %d, want 3", root.Rotation)
	}
	flat := Flatten(root)
	type row struct {
		Order, Depth, Parent int
		Text                 string
		Center               Point
	}
	var got []row
	for i, n := range flat {
		if n.Order != i || n.Children != nil {
			t.Errorf("flat[%d] has Order %d, %d children", i, n.Order, len(n.Children))
		}
		got = append(got, row{n.Order, n.Depth, n.Parent, n.Text, n.Center})
	}
	want := []row{
		{0, 0, -1, "", Point{50, 50}},
		{1, 1, 0, "a", Point{25, 25}},
		{2, 1, 0, "b", Point{75, 75}},
		{3, 2, 2, "c", Point{65, 65}},
		{4, 0, -1, "d", Point{5, 10}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !flat[2].Interactive() || flat[1].Interactive() {
		t.Error("Interactive() wrong")
	}
	if Flatten(nil) != nil {
		t.Error("Flatten(nil) != nil")
	}
}

// rawCapture builds a raw screencap of w*h pixels in format f with a 12 or
// 16 byte header.
func rawCapture(w, h, f, headerLen int) []byte {
	b := make([]byte, headerLen+w*h*BytesPerPixel(f))
	binary.LittleEndian.PutUint32(b[0:], uint32(w))
	binary.LittleEndian.PutUint32(b[4:], uint32(h))
	binary.LittleEndian.PutUint32(b[8:], uint32(f))
	if headerLen == 16 {
		binary.LittleEndian.PutUint32(b[12:], 1) // sRGB
	}
	return b
}

func TestRawScreencapHeader(t *testing.T) {
	t.Parallel()
	type res struct{ W, H, F, HL int }
	tests := []struct {
		name    string
		in      []byte
		want    res
		wantErr bool
	}{
		{"android 8 rgba 12-byte", rawCapture(4, 3, PixelFormatRGBA8888, 12), res{4, 3, 1, 12}, false},
		{"android 9+ rgba 16-byte", rawCapture(4, 3, PixelFormatRGBA8888, 16), res{4, 3, 1, 16}, false},
		{"rgbx 16-byte", rawCapture(2, 2, PixelFormatRGBX8888, 16), res{2, 2, 2, 16}, false},
		{"rgb565 12-byte", rawCapture(5, 1, PixelFormatRGB565, 12), res{5, 1, 4, 12}, false},
		{"short", []byte{1, 2, 3}, res{}, true},
		{"truncated data", rawCapture(4, 3, PixelFormatRGBA8888, 16)[:40], res{}, true},
		{"unknown format", rawCapture(1, 1, 99, 12), res{}, true},
		{"zero size", make([]byte, 16), res{}, true},
		{"huge size", func() []byte {
			b := make([]byte, 16)
			binary.LittleEndian.PutUint32(b, 1<<31)
			binary.LittleEndian.PutUint32(b[4:], 1<<31)
			binary.LittleEndian.PutUint32(b[8:], 1)
			return b
		}(), res{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, h, f, hl, err := RawScreencapHeader(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("err = %v, want ErrFormat", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res{w, h, f, hl}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPackagesInstaller(t *testing.T) {
	t.Parallel()
	got, err := Packages("package:com.a  installer=com.android.vending\npackage:com.b  installer=null\r\nWARNING: linker: foo\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Package{{Name: "com.a", Installer: "com.android.vending"}, {Name: "com.b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
