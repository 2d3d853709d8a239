package suggest

import "testing"

func TestClosest(t *testing.T) {
	t.Parallel()
	known := []string{"listen", "data-dir", "log-level", "lease-grace", "devices", "doctor"}
	for _, tt := range []struct{ word, want string }{
		{"lisen", "listen"},
		{"listne", "listen"},
		{"data-dri", "data-dir"},
		{"device", "devices"},
		{"xyz", ""},
		{"", ""},
		{"completely-different", ""},
	} {
		if got := Closest(tt.word, known); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
