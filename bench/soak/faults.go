package main

import (
	"context"
	"strings"
	"sync"
	"time"
)

// faultMargin extends a fault window past the phones' return: a call
// started just before may still meet the aftermath.
const faultMargin = 2 * time.Second

// faults keeps the windows during which the adb server was down, so
// outcomes started then are counted apart ("@fault"). Safe for concurrent
// use.
type faults struct {
	// mu is held for writing from a kill until every bound phone is back;
	// rebinds, bursts and drops hold it for reading, so they never
	// straddle a kill (their expected outcomes assume a phone that is up).
	mu sync.RWMutex

	wmu     sync.Mutex
	windows []window
}

type window struct{ from, to time.Time } // to is zero while under way

// label returns scen, or scen+"@fault" when a call that started at start
// and ends now overlapped a fault window.
func (f *faults) label(scen string, start time.Time) string {
	end := time.Now()
	f.wmu.Lock()
	defer f.wmu.Unlock()
	for _, w := range f.windows {
		to := w.to
		if to.IsZero() {
			to = end
		}
		if !start.After(to.Add(faultMargin)) && !end.Before(w.from) {
			return scen + "@fault"
		}
	}
	return scen
}

func (f *faults) begin(at time.Time) {
	f.wmu.Lock()
	f.windows = append(f.windows, window{from: at})
	f.wmu.Unlock()
}

func (f *faults) end(at time.Time) {
	f.wmu.Lock()
	f.windows[len(f.windows)-1].to = at
	f.wmu.Unlock()
}

// Fault is one adb server kill and what followed.
type Fault struct {
	AtSeconds  float64 `json:"at_s"` // since the load started
	KillOutput string  `json:"kill_output"`
	// Channels is how many bound channels were watched (the steady
	// phones' and the burst phone's).
	Channels int `json:"channels"`
	// ConnectedAfterMS: from the kill until the last of them was pushed
	// "connected" again (or until the 60 s wait gave up: see NotBack).
	ConnectedAfterMS float64  `json:"connected_after_ms"`
	NotBack          []string `json:"not_back,omitempty"`
	// OfflineSeen counts the channels pushed "offline" in between.
	OfflineSeen int `json:"offline_seen"`
	// CallsOK counts android_device_status calls answered ok right after,
	// one per channel; CallErrors says what the others got.
	CallsOK    int      `json:"calls_ok"`
	CallErrors []string `json:"call_errors,omitempty"`
}

// recoverWait bounds the wait for the phones after a kill: serve retries
// the adb server with a backoff of at most 1 s, and tracking reports the
// phones within about a second of the re-attach.
const recoverWait = 60 * time.Second

// killADB runs `adb -P PORT kill-server` on the adb server serve uses and
// waits until every channel bound() lists is "connected" again and
// answers a call.
func (s *soak) killADB(ctx context.Context, loadStart time.Time, bound func() []chanRef) Fault {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	from := time.Now()
	s.faults.begin(from)
	defer func() { s.faults.end(time.Now()) }()
	f := Fault{AtSeconds: from.Sub(loadStart).Seconds()}
	kctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	out, err := s.env.AdbCmd(kctx, "kill-server").CombinedOutput()
	cancel()
	f.KillOutput = strings.TrimSpace(string(out))
	if err != nil {
		f.KillOutput += " (" + err.Error() + ")"
	}
	chans := bound()
	f.Channels = len(chans)
	wctx, cancel := context.WithTimeout(ctx, recoverWait)
	defer cancel()
	for _, r := range chans {
		if err := s.board.wait(wctx, r.ch, "connected", from); err != nil {
			f.NotBack = append(f.NotBack, r.ch)
		}
	}
	f.ConnectedAfterMS = float64(time.Since(from).Microseconds()) / 1000
	for _, r := range chans {
		if s.board.seen(r.ch, "offline", from) {
			f.OfflineSeen++
		}
	}
	for _, r := range chans {
		p, err := s.invoke(ctx, r, "android_device_status", map[string]any{}, "")
		if o, msg := classify(p, err); o == outOK {
			f.CallsOK++
		} else {
			f.CallErrors = append(f.CallErrors, o+": "+msg)
		}
	}
	return f
}
