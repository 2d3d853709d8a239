package parse

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Fuzz targets: each parser must never panic and must return either a value
// or an error wrapping ErrFormat/ErrNotFound. Seeds are the golden inputs.

func checkErr(t *testing.T, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrNotFound) {
		t.Fatalf("error %v wraps neither ErrFormat nor ErrNotFound", err)
	}
}

func fuzzString(f *testing.F, glob string, parse func(string) error) {
	for _, s := range seeds(f, glob) {
		f.Add(string(s))
	}
	f.Fuzz(func(t *testing.T, s string) { checkErr(t, parse(s)) })
}

func FuzzProps(f *testing.F) {
	fuzzString(f, "props/*.txt", func(s string) error { _, err := Props(s); return err })
}

func FuzzWMSize(f *testing.F) {
	fuzzString(f, "wm/size_*.txt", func(s string) error { _, err := WMSize(s); return err })
}

func FuzzWMDensity(f *testing.F) {
	fuzzString(f, "wm/density_*.txt", func(s string) error { _, err := WMDensity(s); return err })
}

func FuzzNotifications(f *testing.F) {
	fuzzString(f, "notification/*.txt", func(s string) error { _, err := Notifications(s); return err })
}

func FuzzPackagePermissions(f *testing.F) {
	fuzzString(f, "package/*.txt", func(s string) error {
		p, err := PackagePermissions(s)
		for _, n := range p.Requested {
			if !validPermission(n) {
				panic(fmt.Sprintf("requested %q", n))
			}
		}
		return err
	})
}

func FuzzPMResult(f *testing.F) {
	fuzzString(f, "pminstall/*.txt", func(s string) error { _, err := PMResult(s); return err })
}

func FuzzBattery(f *testing.F) {
	fuzzString(f, "battery/*.txt", func(s string) error { _, err := Battery(s); return err })
}

func FuzzWindow(f *testing.F) {
	for _, s := range vendorWindowLines {
		f.Add(s)
	}
	fuzzString(f, "window/*.txt", func(s string) error {
		w, err := Window(s)
		if err == nil && (w.Rotation < 0 || w.Rotation > 3) {
			panic("rotation out of range")
		}
		if err == nil && (w.FocusedDisplay < 0 || w.FocusedActivity != "" && w.FocusedPackage == "") {
			panic(fmt.Sprintf("focus %+v", w))
		}
		return err
	})
}

// vendorWindowLines seed the window fuzz targets with the vendor title
// forms of TestWindowTitleVendorForms.
var vendorWindowLines = []string{
	"  mCurrentFocus=Window{df8de1 u0 com.netease.uuremote/com.remote.app.ui.activity.ScreenActivity type=1}",
	"  mCurrentFocus=Window{dc9225c u0 com.android.settings/com.android.settings.Settings type=1 }",
	"  mCurrentFocus=Window{com.android.systemui:6d67f78 u0 NotificationShade}",
	"  mCurrentFocus=Window{9c0ba6e u0 com.android.settings/com.android.settings.Settings EXITING}",
	"  mCurrentFocus=Window{3a1f2e7 u0 Splash Screen com.android.settings}",
	"mCurrentFocus=Window{com.android.settings/com.android.settings.Settings}",
	"  Display: mDisplayId=1 rootTasks=1\n  mCurrentFocus=null\n  Display: mDisplayId=0\n  mTopFocusedDisplayId=1\n",
}

// FuzzWindowTitle: whatever is inside "Window{...}", a title that names an
// activity names its package, and a package is always a valid one.
func FuzzWindowTitle(f *testing.F) {
	for _, s := range vendorWindowLines {
		if _, inner, ok := strings.Cut(s, "Window{"); ok {
			f.Add(strings.TrimSuffix(inner, "}"))
		}
	}
	f.Fuzz(func(t *testing.T, inner string) {
		w := parseWindowTitle(inner)
		if w.Comp != nil && w.Comp.Package != w.Package {
			t.Fatalf("component %v, package %q", w.Comp, w.Package)
		}
		if w.Package != "" && !ValidPackage(w.Package) {
			t.Fatalf("invalid package %q", w.Package)
		}
	})
}

func FuzzInputRotation(f *testing.F) {
	fuzzString(f, "input/*.txt", func(s string) error { _, err := InputRotation(s); return err })
}

func FuzzGetevent(f *testing.F) {
	fuzzString(f, "getevent/*.txt", func(s string) error {
		devs, err := Getevent(s)
		if err != nil {
			return err
		}
		ts, err := FindTouchscreen(devs)
		if err == nil && (ts.Slots < 1 || ts.X.Max <= ts.X.Min || ts.Y.Max <= ts.Y.Min || ts.TrackingMax < 1) {
			t := fmt.Sprintf("bad touchscreen %+v", ts)
			panic(t)
		}
		return err
	})
}

func FuzzPower(f *testing.F) {
	fuzzString(f, "power/*.txt", func(s string) error { _, err := Power(s); return err })
}

func FuzzTopActivity(f *testing.F) {
	fuzzString(f, "activity/*.txt", func(s string) error { _, _, err := TopActivity(s); return err })
}

func FuzzPackages(f *testing.F) {
	fuzzString(f, "packages/list_*.txt", func(s string) error { _, err := Packages(s); return err })
}

func FuzzPMPath(f *testing.F) {
	fuzzString(f, "packages/pmpath_*.txt", func(s string) error { _, err := PMPath(s); return err })
}

func FuzzResolveActivity(f *testing.F) {
	fuzzString(f, "packages/resolve_*.txt", func(s string) error { _, err := ResolveActivity(s); return err })
}

func FuzzLogcat(f *testing.F) {
	fuzzString(f, "logcat/*.txt", func(s string) error {
		lines, err := Logcat(s)
		for _, l := range lines {
			if strings.ContainsAny(l.Tag+l.Message, "\n\r\x00") || !utf8.ValidString(l.Tag+l.Message) || l.Tag != strings.TrimRight(l.Tag, " ") {
				panic(fmt.Sprintf("line %+v", l))
			}
		}
		return err
	})
}

func FuzzUIDump(f *testing.F) {
	for _, s := range seeds(f, "uidump/*.xml") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		root, err := UIDump(b)
		checkErr(t, err)
		if err != nil {
			return
		}
		for i, n := range Flatten(root) {
			if n.Order != i {
				t.Fatalf("Flatten()[%d].Order = %d", i, n.Order)
			}
		}
	})
}

func FuzzRawScreencapHeader(f *testing.F) {
	f.Add(rawCapture(4, 3, PixelFormatRGBA8888, 12))
	f.Add(rawCapture(4, 3, PixelFormatRGBA8888, 16))
	f.Add(rawCapture(3, 2, PixelFormatRGB565, 16))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		w, h, format, hl, err := RawScreencapHeader(b)
		checkErr(t, err)
		if err == nil && hl+w*h*BytesPerPixel(format) != len(b) {
			t.Fatalf("header %d + %dx%d*%d != %d", hl, w, h, BytesPerPixel(format), len(b))
		}
	})
}
