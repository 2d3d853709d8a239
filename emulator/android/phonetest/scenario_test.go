package phonetest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image/color"
	"image/jpeg"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

func TestReplayScenarioFromDisk(t *testing.T) {
	d := newDevice(t, android.Config{Scenario: "../testdata/scenarios/replay", Serial: "R5CR10ABCDE"})
	if got := mustRun(t, d, "getprop ro.product.manufacturer; getprop ro.serialno; getprop ro.product.model"); got != "samsung\nR5CR10ABCDE\nSM-G991B\n" {
		t.Fatalf("properties %q", got)
	}
	if id := d.Identity(); id.Model != "SM-G991B" || id.Device != "oriole" {
		t.Fatalf("identity %+v", id)
	}
	want, _ := os.ReadFile("../testdata/scenarios/replay/battery.txt")
	if got := mustRun(t, d, "dumpsys battery"); got != string(want) {
		t.Fatalf("pinned battery output %q", got)
	}
	if got := mustRun(t, d, "echo x; getprop ro.build.version.oneui"); got != "x\n50100\n" {
		t.Fatalf("pinned argv output %q", got)
	}
	out, errOut, st := run(t, d, "cmd nope")
	if out != "" || errOut != "boom\n" || st != 42 {
		t.Fatalf("pinned failure: %q %q %d", out, errOut, st)
	}
	mustRun(t, d, "am start -n com.android.settings/.Settings")
	// The real screenshot is served for the dump screen, scaled to the display.
	shot := d.Screenshot()
	if shot.Rect.Dx() != 1080 || shot.RGBAAt(500, 1000) != (color.RGBA{0x12, 0x34, 0x56, 0xff}) {
		t.Fatalf("replayed screenshot %v %v", shot.Rect, shot.RGBAAt(500, 1000))
	}
	if phonekit.FindNode(t, d, phonekit.ByText("Connections")) == nil {
		t.Fatal("dump screen not served")
	}
	tapOn(t, d, phonekit.ByID("com.android.settings:id/search"))
	mustRun(t, d, "input text wifi")
	if n := phonekit.FindNode(t, d, phonekit.ByID("com.android.settings:id/search")); n.Text != "wifi" || !n.Focused {
		t.Fatalf("typing into a replayed field: %+v", n)
	}
	tapOn(t, d, phonekit.ByText("Connections"))
	if d.ScreenID() != "connections" {
		t.Fatalf("rule did not fire: %q", d.ScreenID())
	}
}

func TestLoadScenarioErrors(t *testing.T) {
	if _, err := ui.LoadScenario("no-such-scenario"); !errors.Is(err, ui.ErrUnknownScenario) {
		t.Fatalf("unknown name: %v", err)
	}
	for name, js := range map[string]string{
		"bad json":      `{`,
		"unknown field": `{"screens":[{"id":"home","launcher":true}],"bogus":1}`,
		"no home":       `{"screens":[{"id":"x","launcher":true}]}`,
		"empty screen":  `{"screens":[{"id":"home"}]}`,
		"dup screen":    `{"screens":[{"id":"home","launcher":true},{"id":"home","launcher":true}]}`,
		"bad app":       `{"apps":[{"package":"a","screen":"nope"}],"screens":[{"id":"home","launcher":true}]}`,
		"missing dump":  `{"screens":[{"id":"home","dump":"nope.xml"}]}`,
		"bad start":     `{"start":"nope","screens":[{"id":"home","launcher":true}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ui.ParseScenario(fstest.MapFS{"scenario.json": {Data: []byte(js)}}); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	for _, n := range ui.ScenarioNames() {
		if _, err := ui.LoadScenario(n); err != nil {
			t.Errorf("embedded %s: %v", n, err)
		}
	}
	if got := strings.Join(ui.ScenarioNames(), ","); got != "launcher,list,login,photos" {
		t.Fatalf("embedded scenarios %s", got)
	}
}

// TestScreenrecordMP4 walks the ISO BMFF boxes and decodes every frame.
func TestScreenrecordMP4(t *testing.T) {
	d := newDevice(t, android.Config{})
	mustRun(t, d, "screenrecord --time-limit 3 --size 360x640 /sdcard/r.mp4")
	data, err := d.FS().ReadFile("/sdcard/r.mp4")
	if err != nil {
		t.Fatal(err)
	}
	boxes := map[string][]byte{}
	var order []string
	for rest := data; len(rest) > 0; {
		size := binary.BigEndian.Uint32(rest)
		if size < 8 || int(size) > len(rest) {
			t.Fatalf("bad box size %d", size)
		}
		typ := string(rest[4:8])
		boxes[typ] = rest[8:size]
		order = append(order, typ)
		rest = rest[size:]
	}
	if strings.Join(order, ",") != "ftyp,moov,mdat" {
		t.Fatalf("top-level boxes %v", order)
	}
	moov := boxes["moov"]
	find := func(name string) []byte {
		i := bytes.Index(moov, []byte(name))
		if i < 4 {
			t.Fatalf("no %s box", name)
		}
		return moov[i+4 : i-4+int(binary.BigEndian.Uint32(moov[i-4:]))]
	}
	stsz := find("stsz")
	n := binary.BigEndian.Uint32(stsz[8:])
	if n != 3 {
		t.Fatalf("%d samples, want 3", n)
	}
	off := int(binary.BigEndian.Uint32(find("stco")[8:]))
	for i := range int(n) {
		sz := int(binary.BigEndian.Uint32(stsz[12+4*i:]))
		img, err := jpeg.Decode(bytes.NewReader(data[off : off+sz]))
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if b := img.Bounds(); b.Dx() != 360 || b.Dy() != 640 {
			t.Fatalf("frame size %v", b)
		}
		off += sz
	}
	if off != len(data) {
		t.Fatalf("mdat has %d trailing bytes", len(data)-off)
	}
	tkhd := find("tkhd")
	if w := binary.BigEndian.Uint32(tkhd[76:]) >> 16; w != 360 {
		t.Fatalf("tkhd width %d", w)
	}
}
