package redact

import (
	"net"
	"strings"
	"testing"
)

var displayNameCases = []struct {
	model, serial, want string
	secrets             []string // substrings that must not appear
}{
	{"Pixel 7", "28161FDH2003F9A", "Pixel 7 (…3F9A)", []string{"28161FDH2003F9A", "28161"}},
	{"Pixel_7", "R58M123ABC", "Pixel 7 (…3ABC)", []string{"R58M"}},
	{"SM-G991B", "emulator-5554", "SM-G991B (…5554)", []string{"emulator"}},
	{"Pixel 7", "192.168.1.20:5555", "Pixel 7 (tcp #", []string{"192.168", "1.20", "5555", ":55"}},
	{"Pixel 7", "127.0.0.1:40123", "Pixel 7 (tcp #", []string{"127.0.0.1", "40123", "123"}},
	{"Pixel 7", "[fe80::1]:5555", "Pixel 7 (tcp #", []string{"fe80", "5555"}},
	{"Pixel 7", "adb-28161FDH2003F9A-AbCdEf._adb-tls-connect._tcp", "Pixel 7 (tcp #", []string{"28161", "AbCdEf", "F9A"}},
	{"", "ABCDEFGH", "Android device (…EFGH)", []string{"ABCD"}},
	{"Nexus", "ABCDE", "Nexus (…E)", []string{"ABCDE", "DE"}},
	{"Nexus", "AB", "Nexus (…)", []string{"AB"}},
	{"Nexus", "", "Nexus (unknown)", nil},
	{"Evil\x1b[31m\nModel\u202e", "ABCDEFGH", "Evil[31m Model (…EFGH)", []string{"\x1b", "\n", "\u202e"}},
	{strings.Repeat("M", 100), "ABCDEFGH", strings.Repeat("M", maxModelLen) + " (…EFGH)", nil},
}

func TestDisplayName(t *testing.T) {
	t.Parallel()
	for _, tt := range displayNameCases {
		t.Run(tt.model+"/"+tt.serial, func(t *testing.T) {
			t.Parallel()
			got := DisplayName(tt.model, tt.serial)
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("DisplayName(%q, %q) = %q, want prefix %q", tt.model, tt.serial, got, tt.want)
			}
			for _, s := range tt.secrets {
				if strings.Contains(got, s) {
					t.Errorf("DisplayName(%q, %q) = %q leaks %q", tt.model, tt.serial, got, s)
				}
			}
			if again := DisplayName(tt.model, tt.serial); again != got {
				t.Errorf("not stable: %q then %q", got, again)
			}
		})
	}
}

// FuzzDisplayName: the serial (outside input from adb) never appears whole
// once it is long enough to identify a device, and no address does.
func FuzzDisplayName(f *testing.F) {
	for _, c := range displayNameCases {
		f.Add(c.model, c.serial)
	}
	f.Fuzz(func(t *testing.T, model, serial string) {
		got := DisplayName(model, serial)
		hint := SerialHint(serial)
		if len(serial) >= 3 && strings.Contains(hint, serial) {
			t.Fatalf("SerialHint(%q) = %q shows the whole serial", serial, hint)
		}
		// A 4-hex-digit hash cannot hold a host of 5+ characters or a 6+ digit port by chance.
		if host, port, err := net.SplitHostPort(serial); err == nil && host != "" &&
			((len(host) > 4 && strings.Contains(hint, host)) || (len(port) > 5 && strings.Contains(hint, port))) {
			t.Fatalf("SerialHint(%q) = %q shows the address", serial, hint)
		}
		if !strings.HasSuffix(got, "("+hint+")") {
			t.Fatalf("DisplayName = %q, want suffix (%s)", got, hint)
		}
	})
}

func TestChannelLabel(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ id, want string }{
		{"cch_3f9a1c0d2e4b5a69788796a5b4c3d2e1", "cch_3f9a1c"},
		{"cch_3f9a", "cch_3f9a"},
		{"plainchannelid", "plainc"},
		{"", ""},
	} {
		if got := ChannelLabel(c.id); got != c.want {
			t.Errorf("ChannelLabel(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}
