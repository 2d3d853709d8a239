package apk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The fixtures are real APKs and manifests (testdata/SOURCES.md); the
// expected values are what `aapt dump badging` (Debian's aapt 10.0.0)
// prints of each.
func TestReadRealAPKs(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Manifest
	}{
		{"politedroid_4.apk", Manifest{Package: "com.politedroid", VersionCode: 4, VersionName: "1.3"}},
		{"tinyapp_10_signed.apk", Manifest{Package: "android.appsecurity.cts.tinyapp", VersionCode: 10, VersionName: "1.0"}},
		{"tinyapp_10_unsigned.apk", Manifest{Package: "android.appsecurity.cts.tinyapp", VersionCode: 10, VersionName: "1.0"}},
		{"duplicate_permissions_9999999.apk", Manifest{Package: "duplicate.permisssions", VersionCode: 9999999, VersionName: "0.3-7-gb817ac8"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b := readFixture(t, tc.file)
			got, err := Read(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A UTF-8 string pool (aapt2's choice) decodes as the UTF-16 ones do.
func TestDecodeUTF8Pool(t *testing.T) {
	got, err := Decode(readFixture(t, "utf8_strings.axml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Manifest{Package: "com.easylocker.bbottles.zt", VersionCode: 5, VersionName: "1.2.1"}); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestReadRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"no manifest in the zip", readFixture(t, "no_manifest.apk"), ErrNotAPK},
		{"not a zip", []byte("this is not an APK\n"), ErrNotAPK},
		{"empty", nil, ErrNotAPK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.data), int64(len(tc.data)))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}

func TestDecodeRefusals(t *testing.T) {
	good := manifestOf(t, "politedroid_4.apk")
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"a chunk that is not XML", readFixture(t, "wrong_chunk_start.axml")},
		{"truncated", good[:len(good)/2]},
		{"header only", good[:8]},
		{"text XML", []byte(`<?xml version="1.0"?><manifest package="a.b"/>`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode(tc.data); !errors.Is(err, ErrManifest) {
				t.Fatalf("err %v, want ErrManifest", err)
			}
		})
	}
}

// A versionName that names a string resource is reported as such, not
// resolved: the real manifest of politedroid with that one attribute's
// Res_value type changed from TYPE_STRING to TYPE_REFERENCE.
func TestVersionNameReference(t *testing.T) {
	b := manifestOf(t, "politedroid_4.apk")
	i := attributeValue(t, b, attrVersionName)
	b[i+3] = typeReference
	binary.LittleEndian.PutUint32(b[i+4:], 0x7f050001)
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Manifest{Package: "com.politedroid", VersionCode: 4, VersionNameRef: true}); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// attributeValue finds the Res_value of the <manifest> attribute whose
// resource id is id, for a test to alter.
func attributeValue(t *testing.T, b []byte, id uint32) int {
	t.Helper()
	var ids []uint32
	for off := 8; off < len(b); {
		c, err := readChunk(b[off:])
		if err != nil {
			t.Fatal(err)
		}
		switch c.typ {
		case resXMLResourceMap:
			for i := c.headerSize; i+4 <= len(c.data); i += 4 {
				ids = append(ids, binary.LittleEndian.Uint32(c.data[i:]))
			}
		case resXMLStartElement:
			ext := off + c.headerSize
			start := int(binary.LittleEndian.Uint16(b[ext+8:]))
			size := int(binary.LittleEndian.Uint16(b[ext+10:]))
			count := int(binary.LittleEndian.Uint16(b[ext+12:]))
			for k := range count {
				a := ext + start + k*size
				if n := binary.LittleEndian.Uint32(b[a+4:]); int(n) < len(ids) && ids[n] == id {
					return a + 12
				}
			}
			t.Fatalf("no attribute 0x%08x", id)
		}
		off += len(c.data)
	}
	t.Fatal("no element")
	return 0
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
