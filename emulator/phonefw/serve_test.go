package phonefw

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func request(args ...string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(args)))
	for _, a := range args {
		b = binary.BigEndian.AppendUint32(b, uint32(len(a)))
		b = append(b, a...)
	}
	return b
}

// FuzzReadRequest: the side channel's decoder of what the framework sends
// never panics, never reads past a bounded argument, and reads back what
// was framed.
func FuzzReadRequest(f *testing.F) {
	f.Add(request("dump"))
	f.Add(request("motion", "0", "4098", "1", "1", "10.5", "20"))
	f.Add(request("clipset", "剪贴板"))
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		args, err := readRequest(bytes.NewReader(b))
		if err != nil {
			return
		}
		if len(args) == 0 || len(args) > maxArgs {
			t.Fatalf("%d arguments accepted", len(args))
		}
		if !bytes.HasPrefix(b, request(args...)) {
			t.Fatalf("decoded %q from %x", args, b)
		}
	})
}

func TestSourceFilter(t *testing.T) {
	for _, tc := range []struct {
		tag string
		sdk int
		in  bool
	}{
		{"34+", 33, false}, {"34+", 34, true}, {"-33", 33, true}, {"-33", 34, false},
		{"30-33", 29, false}, {"30-33", 31, true}, {"30-33", 34, false},
	} {
		if in, err := inRange(tc.tag, tc.sdk); err != nil || in != tc.in {
			t.Errorf("inRange(%q, %d) = %t, %v", tc.tag, tc.sdk, in, err)
		}
	}
	if _, err := inRange("34", 34); err == nil {
		t.Error("a tag without a range was accepted")
	}
	for _, sdk := range Modeled {
		src, err := Source(sdk)
		if err != nil {
			t.Fatal(err)
		}
		_, global := src["android/hardware/input/InputManagerGlobal.java"]
		if global != (sdk >= 34) {
			t.Errorf("sdk %d: InputManagerGlobal present %t", sdk, global)
		}
		if im := src["android/hardware/input/InputManager.java"]; bytes.Contains([]byte(im), []byte("static InputManager getInstance()")) != (sdk < 34) {
			t.Errorf("sdk %d: InputManager.getInstance present %t", sdk, !(sdk < 34))
		}
	}
}
