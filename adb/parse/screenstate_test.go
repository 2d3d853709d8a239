package parse

import (
	"os"
	"strings"
	"testing"
)

func TestKeyboardShown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in           string
		shown, known bool
	}{
		{"  mCurMethodId=com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\n  mInputShown=true mShowRequested=true", true, true},
		{"InputMethodManagerService:\n  mInputShown=false\n", false, true},
		{"Can't find service: input_method\n", false, false},
	} {
		if s, k := KeyboardShown(tc.in); s != tc.shown || k != tc.known {
			t.Errorf("KeyboardShown(%q) = %v %v", tc.in, s, k)
		}
	}
}

func TestFocusedWindowSecure(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/screenstate/secure_window_api33.txt")
	if err != nil {
		t.Fatal(err)
	}
	dump := string(b)
	if !FocusedWindowSecure(dump) {
		t.Error("the focused banking window has SECURE in fl=, not reported")
	}
	// The same dump focused on the wallpaper (no SECURE) is not secure.
	other := strings.ReplaceAll(dump, "mCurrentFocus=Window{8c3e1aa u0 com.example.bank/com.example.bank.MainActivity}",
		"mCurrentFocus=Window{5a1f0c2 u0 com.android.systemui.wallpapers.ImageWallpaper}")
	if FocusedWindowSecure(other) {
		t.Error("a window without SECURE reported secure")
	}
	hex := strings.ReplaceAll(dump, "fl=LAYOUT_IN_SCREEN LAYOUT_INSET_DECOR SECURE SPLIT_TOUCH HARDWARE_ACCELERATED DRAWS_SYSTEM_BAR_BACKGROUNDS", "fl=#81812100")
	if !FocusedWindowSecure(hex) {
		t.Error("hex flags with 0x2000 (Android 8-9) not reported secure")
	}
	if FocusedWindowSecure("mCurrentFocus=null\n") {
		t.Error("nothing focused reported secure")
	}
}

func FuzzFocusedWindowSecure(f *testing.F) {
	for _, b := range seeds(f, "screenstate/*.txt") {
		f.Add(string(b))
	}
	f.Add("  Window #1 Window{1 u0 a}:\n fl=#zz\n  mCurrentFocus=Window{1 u0 a}\n")
	f.Fuzz(func(t *testing.T, s string) {
		FocusedWindowSecure(s)
		KeyboardShown(s)
	})
}
