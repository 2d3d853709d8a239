package adb

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const ep = "127.0.0.1:5037"

var deviceListCases = []struct {
	name    string
	payload string
	want    []DeviceInfo
	wantErr bool
}{
	{name: "empty", payload: ""},
	{
		name:    "usb device",
		payload: "0A1B2C3D4E             device usb:1-1.2 product:panther model:Pixel_7 device:panther transport_id:3\n",
		want: []DeviceInfo{{Key: ep + "/0A1B2C3D4E", Endpoint: ep, Serial: "0A1B2C3D4E", State: StateDevice,
			Product: "panther", Model: "Pixel_7", Device: "panther", Transport: TransportUSB, DevPath: "usb:1-1.2", TransportID: 3}},
	},
	{
		// gadb dropped these lines (under 4 fields).
		name:    "offline and unauthorized keep their lines",
		payload: "emulator-5554          offline transport_id:1\n192.168.1.5:5555       unauthorized transport_id:2\n",
		want: []DeviceInfo{
			{Key: ep + "/emulator-5554", Endpoint: ep, Serial: "emulator-5554", State: StateOffline, Transport: TransportEmulator, TransportID: 1},
			{Key: ep + "/192.168.1.5:5555", Endpoint: ep, Serial: "192.168.1.5:5555", State: StateUnauthorized, Transport: TransportTCP, TransportID: 2},
		},
	},
	{
		name:    "short form",
		payload: "R58M123\tdevice\nR58M456\toffline\n",
		want: []DeviceInfo{
			{Key: ep + "/R58M123", Endpoint: ep, Serial: "R58M123", State: StateDevice, Transport: TransportUSB},
			{Key: ep + "/R58M456", Endpoint: ep, Serial: "R58M456", State: StateOffline, Transport: TransportUSB},
		},
	},
	{
		name:    "no permissions with explanation",
		payload: "1234ABCD               no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html] usb:1-4 transport_id:7\n",
		want: []DeviceInfo{{Key: ep + "/1234ABCD", Endpoint: ep, Serial: "1234ABCD", State: StateNoPermissions,
			Transport: TransportUSB, DevPath: "usb:1-4", TransportID: 7}},
	},
	{
		name:    "crlf and blank lines",
		payload: "\r\nabc device product:p model:m device:d\r\n\n",
		want:    []DeviceInfo{{Key: ep + "/abc", Endpoint: ep, Serial: "abc", State: StateDevice, Product: "p", Model: "m", Device: "d", Transport: TransportUSB}},
	},
	{name: "serial only", payload: "abc\n", wantErr: true},
	{name: "attribute instead of state", payload: "abc model:x\n", wantErr: true},
}

func TestParseDeviceList(t *testing.T) {
	for _, tt := range deviceListCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDeviceList(ep, tt.payload)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseDeviceList feeds a track-devices-l byte stream (length-prefixed
// lists) through the frame reader and the list parser.
func FuzzParseDeviceList(f *testing.F) {
	for _, tt := range deviceListCases {
		f.Add([]byte(frame(tt.payload) + frame(tt.payload)))
	}
	f.Add([]byte("zzzz"))
	f.Add([]byte("0010short"))
	f.Fuzz(func(t *testing.T, data []byte) {
		hc := &hostConn{br: bufio.NewReader(bytes.NewReader(data)), ctx: t.Context()}
		for range 100 {
			s, err := hc.readHex()
			if err != nil {
				return
			}
			list, err := parseDeviceList(ep, s)
			if err != nil {
				continue
			}
			for _, d := range list {
				if d.Serial == "" || d.State == "" || strings.ContainsAny(d.Serial, " \t\n") {
					t.Fatalf("bad device %+v from %q", d, s)
				}
				if k, _, err := SplitKey(d.Key); err != nil || k != ep {
					t.Fatalf("bad key %q", d.Key)
				}
			}
		}
	})
}

func frame(s string) string { return hex4(len(s)) + s }

func hex4(n int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[n>>12&15], digits[n>>8&15], digits[n>>4&15], digits[n&15]})
}

// FuzzDeviceStreams runs the shell v2, LIST and RECV decoders on arbitrary
// bytes: they must return (data or error), never panic or over-allocate.
func FuzzDeviceStreams(f *testing.F) {
	f.Add([]byte("\x01\x05\x00\x00\x00hello\x02\x03\x00\x00\x00err\x03\x01\x00\x00\x00\x07"))
	f.Add([]byte("DENT\xa4\x81\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00a.txtDONE\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("DATA\x03\x00\x00\x00abcDONE\x00\x00\x00\x00"))
	f.Add([]byte("FAIL\x0e\x00\x00\x00No such file"))
	f.Add([]byte("\x01\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		for range 100 {
			if _, _, err := readShellPacket(r); err != nil {
				break
			}
		}
		_, _ = readDents(bytes.NewReader(data))
		_ = readRecv(bytes.NewReader(data), io.Discard, func(n uint32) error { return nil })
	})
}

func TestSplitKey(t *testing.T) {
	tests := []struct {
		key, ep, serial string
		ok              bool
	}{
		{"127.0.0.1:5037/ABC", "127.0.0.1:5037", "ABC", true},
		{"10.0.0.2:5037/192.168.1.5:5555", "10.0.0.2:5037", "192.168.1.5:5555", true},
		{"nokey", "", "", false},
		{"/x", "", "", false},
		{"a:1/", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			e, s, err := SplitKey(tt.key)
			if (err == nil) != tt.ok || e != tt.ep || s != tt.serial {
				t.Errorf("SplitKey = %q %q %v", e, s, err)
			}
		})
	}
}
