package timing

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/adbd"
)

// ErrUnknownProfile is returned for a timing profile name that is not one
// of ProfileNames.
var ErrUnknownProfile = errors.New("unknown timing profile")

// Profile is the timing model of one kind of phone and link. The zero
// value is the instant profile. A Profile is read-only once built; its
// methods are pure and safe for concurrent use.
type Profile struct {
	// Name is the profile's name ("pixel-usb").
	Name string
	// Summary says in a few words what it models.
	Summary string
	// Start is the cost of starting a command, by command name, where it
	// starts a Java VM (app_process): uiautomator, monkey and app_process
	// always, input below Android 12, and the native `cmd` client. A short
	// command is dominated by its process and runtime start. Commands not
	// listed (toybox, shell builtins) cost nothing.
	Start map[string]time.Duration
	// Cmd is the cost, on Android 12 (SDK 31) and later, of the commands
	// that are shell scripts over `cmd SERVICE` there (input, am,
	// settings, wm, ime, pm): the binder call plus the service's work, no
	// VM (sdk.go). Below SDK 31 such a command costs Start.
	Cmd map[string]time.Duration
	// ShellStart is adbd's start of the shell for each shell or exec
	// stream (fork and exec of /system/bin/sh): paid once per stream, so
	// a kept-open shell session pays it once for all its commands.
	ShellStart time.Duration
	// Dumpsys is the cost of `dumpsys SERVICE` by service (the service
	// builds its dump under locks in system_server), DumpsysOther for any
	// service not listed and for a bare `dumpsys`.
	Dumpsys      map[string]time.Duration
	DumpsysOther time.Duration
	// CaptureBase and CapturePerMP are screencap's grab of the frame from
	// SurfaceFlinger (a fixed part and a part per megapixel); PNGPerMP is
	// the PNG encode `screencap -p` adds on the phone's CPU.
	CaptureBase  time.Duration
	CapturePerMP time.Duration
	PNGPerMP     time.Duration
	// DeflatePerMB is gzip's CPU time per MB (10^6 bytes) of input at
	// level 1 (zlib's deflate_fast, levels 1-3); levels 4-9 (deflate_slow)
	// cost more by deflateLevelFactor. Zero: free.
	DeflatePerMB time.Duration
	// DumpIdle is what `uiautomator dump` waits for the UI to be idle
	// before it dumps (its own start is Start["uiautomator"]).
	DumpIdle time.Duration
	// InstallBase and InstallPerMB are `pm install`'s work on the phone
	// past its command start: the package manager's copy into the
	// session, parse, verification and dex optimisation (InstallCost).
	InstallBase  time.Duration
	InstallPerMB time.Duration
	// RealTimeRecord makes screenrecord take its --time-limit in real time
	// (Config.RealTimeRecord).
	RealTimeRecord bool
	// Link is the transport between host and phone.
	Link adbd.Link
}

// DefaultProfile is the profile of a device configured with none.
const DefaultProfile = "instant"

var profiles = map[string]Profile{
	"instant": {Name: "instant", Summary: "no device or link cost (unit tests)"},
	// Sources (docs/phone-timings.md): VM starts from scrcpy's "starting
	// the Java process" analysis and madb's 300-400 ms `input tap`; `cmd`
	// calls from the Handsets benchmark (`adb shell wm size` 45.8 ms
	// against `adb shell true` 27.7 ms: about 20 ms of service work);
	// adbd's shell start is an estimate (5-15 ms); capture and PNG encode
	// from scrcpy's 250 ms capture / 2 s encode and the Handsets blog's
	// `screencap -p` vs raw medians; deflate from lzbench's zlib -1 figures
	// scaled to a phone core; uiautomator's idle wait from AOSP
	// DumpCommand (waitForIdle(1000, 10000)); the link from ya-webadb's
	// 38 MB/s adb push over USB 2.0.
	"pixel-usb": {
		Name:    "pixel-usb",
		Summary: "a recent flagship (Pixel 7/8 class, Android 13-14) on a USB 2 cable",
		Start: map[string]time.Duration{
			"input": 200 * time.Millisecond, "am": 200 * time.Millisecond, "pm": 250 * time.Millisecond,
			"cmd": 20 * time.Millisecond, "settings": 200 * time.Millisecond, "wm": 150 * time.Millisecond,
			"ime": 150 * time.Millisecond, "monkey": 400 * time.Millisecond, "uiautomator": 600 * time.Millisecond,
			"app_process": 200 * time.Millisecond,
		},
		Cmd: map[string]time.Duration{
			"input": 30 * time.Millisecond, "am": 50 * time.Millisecond, "pm": 60 * time.Millisecond,
			"settings": 25 * time.Millisecond, "wm": 20 * time.Millisecond, "ime": 25 * time.Millisecond,
		},
		ShellStart: 10 * time.Millisecond,
		Dumpsys: map[string]time.Duration{
			"window": 150 * time.Millisecond, "activity": 250 * time.Millisecond, "meminfo": 700 * time.Millisecond,
			"package": 300 * time.Millisecond,
		},
		DumpsysOther: 60 * time.Millisecond,
		CaptureBase:  80 * time.Millisecond, CapturePerMP: 40 * time.Millisecond, PNGPerMP: 200 * time.Millisecond,
		DeflatePerMB: 12 * time.Millisecond,
		DumpIdle:     time.Second,
		InstallBase:  800 * time.Millisecond, InstallPerMB: 150 * time.Millisecond,
		RealTimeRecord: true,
		Link:           usb2(38_000_000, 500*time.Microsecond),
	},
	// The slow end of the same sources: 0.3-2 s `input` (madb, scrcpy,
	// KeyMapper), 2-3 s `screencap -p` (scrcpy, awesome-adb, Android 9
	// reports), openmtp's 6-30 MB/s on USB 2.
	"budget-usb": {
		Name:    "budget-usb",
		Summary: "a low-end phone (4-8 slow cores, Android 11-13) on a USB 2 cable",
		Start: map[string]time.Duration{
			"input": 600 * time.Millisecond, "am": 600 * time.Millisecond, "pm": 750 * time.Millisecond,
			"cmd": 60 * time.Millisecond, "settings": 600 * time.Millisecond, "wm": 450 * time.Millisecond,
			"ime": 450 * time.Millisecond, "monkey": 1200 * time.Millisecond, "uiautomator": 1500 * time.Millisecond,
			"app_process": 600 * time.Millisecond,
		},
		// The flagship's cmd costs x3, the ratio of the VM starts above.
		Cmd: map[string]time.Duration{
			"input": 90 * time.Millisecond, "am": 150 * time.Millisecond, "pm": 180 * time.Millisecond,
			"settings": 75 * time.Millisecond, "wm": 60 * time.Millisecond, "ime": 75 * time.Millisecond,
		},
		ShellStart: 15 * time.Millisecond,
		Dumpsys: map[string]time.Duration{
			"window": 450 * time.Millisecond, "activity": 750 * time.Millisecond, "meminfo": 2 * time.Second,
			"package": 900 * time.Millisecond,
		},
		DumpsysOther: 180 * time.Millisecond,
		CaptureBase:  200 * time.Millisecond, CapturePerMP: 120 * time.Millisecond, PNGPerMP: 900 * time.Millisecond,
		DeflatePerMB: 35 * time.Millisecond,
		DumpIdle:     time.Second,
		InstallBase:  2400 * time.Millisecond, InstallPerMB: 450 * time.Millisecond,
		RealTimeRecord: true,
		Link:           usb2(20_000_000, time.Millisecond),
	},
}

func init() {
	// The Wi-Fi profile is the flagship's device costs over adb on TCP:
	// STF's "1/10th (or less)" of USB throughput, gnirehtet's 5-10 ms
	// Wi-Fi ping.
	wifi := profiles["pixel-usb"]
	wifi.Name = "wifi"
	wifi.Summary = "the flagship over adb on TCP (Wi-Fi, same network as the host)"
	wifi.Link = adbd.Link{
		Up:   adbd.Direction{Latency: 4 * time.Millisecond, BytesPerSec: 4_000_000},
		Down: adbd.Direction{Latency: 4 * time.Millisecond, BytesPerSec: 4_000_000},
	}
	profiles["wifi"] = wifi
}

// usb2 is a symmetric USB 2 link: adb's bulk throughput and one-way latency.
func usb2(bytesPerSec int64, latency time.Duration) adbd.Link {
	d := adbd.Direction{Latency: latency, BytesPerSec: bytesPerSec}
	return adbd.Link{Up: d, Down: d}
}

// ProfileNames returns the names of the timing profiles, DefaultProfile
// first.
func ProfileNames() []string {
	names := []string{DefaultProfile}
	for n := range profiles {
		if n != DefaultProfile {
			names = append(names, n)
		}
	}
	slices.Sort(names[1:])
	return names
}

// ProfileByName returns the named timing profile; "" is DefaultProfile.
// An unknown name is an error (wrapping ErrUnknownProfile) that lists the
// allowed ones.
func ProfileByName(name string) (Profile, error) {
	if name == "" {
		name = DefaultProfile
	}
	p, ok := profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("%w %q (want one of %s)", ErrUnknownProfile, name, strings.Join(ProfileNames(), ", "))
	}
	return p, nil
}

// StartCost is the cost of starting the simple command argv (argv[0] a
// name or a /system/bin path) as a VM-started tool: Start by name, plus
// the service's dump for dumpsys. It is the cost below Android 12;
// CommandCost gives it for a phone's SDK.
func (p Profile) StartCost(argv ...string) time.Duration {
	if len(argv) == 0 {
		return 0
	}
	name := path.Base(argv[0])
	cost := p.Start[name]
	if name == "dumpsys" {
		svc := p.DumpsysOther
		for _, a := range argv[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if c, ok := p.Dumpsys[a]; ok {
				svc = c
			}
			break
		}
		cost += svc
	}
	return cost
}

// CaptureCost is what screencap spends on a w x h frame: the grab, plus
// the PNG encode when asPNG (screencap -p, or a FILE ending in .png).
func (p Profile) CaptureCost(w, h int, asPNG bool) time.Duration {
	px := int64(w) * int64(h)
	perMP := p.CapturePerMP
	if asPNG {
		perMP += p.PNGPerMP
	}
	return p.CaptureBase + time.Duration(px*int64(perMP)/1_000_000)
}

// deflateLevelFactor is the cost of zlib levels 4-6 and 7-9 relative to
// level 1: lzbench's zlib 1.2.11 figures (72, 24 and 20 MB/s at -1, -6 and
// -9, as quoted in docs/phone-timings.md) give 3 and 3.6.
func deflateLevelFactor(level int) (num, den int64) {
	switch {
	case level >= 7:
		return 18, 5
	case level >= 4:
		return 3, 1
	}
	return 1, 1
}

// DeflateCost is what gzip at level spends compressing n bytes.
func (p Profile) DeflateCost(n int64, level int) time.Duration {
	num, den := deflateLevelFactor(level)
	return time.Duration(n * int64(p.DeflatePerMB) / 1_000_000 * num / den)
}

// InstallCost is what `pm install` of an APK of n bytes costs past its
// command start: InstallBase plus InstallPerMB per MB (10^6 bytes).
func (p Profile) InstallCost(n int64) time.Duration {
	return p.InstallBase + time.Duration(n*int64(p.InstallPerMB)/1_000_000)
}
