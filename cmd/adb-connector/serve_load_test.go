package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/tools"
)

// TestSlowPhonesDoNotStallTheSocket: xAgent carries every user on one
// socket, so one user's slow phone must not delay anyone else. 100
// one-second long presses over five channels on five phones fill each
// channel's and each phone's queue; a ping and a call on a sixth channel
// must then be answered before the slow calls drain (today's ordering
// contract, not a wall-clock bound: they must overtake all but a handful of
// the long presses). Every refused call is refused with a stable code
// (rate_limited over the channel's bound, device_busy when it waited for the
// phone until its deadline and never started, tool_timeout when its
// deadline cut it on the phone), never device_offline for a phone that
// stayed online, and the phones' command logs show that no refused call
// ran.
func TestSlowPhonesDoNotStallTheSocket(t *testing.T) {
	t.Parallel()
	const (
		phones   = 5
		perPhone = 20
	)
	env := adbtest.Start(t, adbtest.Options{Devices: phones + 1})
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)
	a := newAgent(t, p, "")
	chans := make([]string, phones+1)
	for i := range chans {
		chans[i] = a.open(t)
		a.pair(t, p, chans[i], env.Devices[i].Serial())
	}

	ctx := t.Context()
	type outcome struct {
		phone int
		code  string // "" for success
	}
	var (
		mu       sync.Mutex
		okBefore int // long presses answered ok so far
		wg       sync.WaitGroup
	)
	results := make(chan outcome, phones*perPhone)
	for i := range phones * perPhone {
		phone := i % phones
		wg.Go(func() {
			r, err := a.Request(ctx, connector.TypeToolInvoke, chans[phone], map[string]any{
				"tool_id":   "android_tap",
				"arguments": map[string]any{"x": 10, "y": 10, "duration_ms": 1000},
				"context":   map[string]string{"tool_call_id": fmt.Sprintf("slow_%d", i)},
			})
			if err != nil {
				t.Errorf("long press %d: %v", i, err)
				return
			}
			o := outcome{phone: phone}
			if r.Error != nil {
				o.code = r.Error.Code
			} else {
				mu.Lock()
				okBefore++
				mu.Unlock()
			}
			results <- o
		})
	}
	// Wait until each phone finished its first long press, so every slow
	// call is on the wire and the ping really comes behind them.
	tick := time.NewTicker(10 * time.Millisecond) // no event to wait on
	defer tick.Stop()
	deadline := time.After(setupWait)
	for {
		mu.Lock()
		n := okBefore
		mu.Unlock()
		if n >= phones {
			break
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("long presses did not finish within %s", setupWait)
		}
	}

	if r, err := a.Request(ctx, connector.TypePing, "", nil); err != nil || r.Type != connector.TypePong {
		t.Fatalf("ping: %+v %v", r, err)
	}
	mu.Lock()
	pingAfter := okBefore
	mu.Unlock()
	var status map[string]any
	result(t, a.invoke(t, chans[phones], "android_device_status", map[string]any{}), &status)
	mu.Lock()
	sixthAfter := okBefore
	mu.Unlock()
	// Before the fix the reader stopped at 64 calls in flight: the ping was
	// read only after ~37 long presses had finished.
	if pingAfter >= 2*phones || sixthAfter >= 3*phones {
		t.Errorf("ping answered after %d and the sixth channel's call after %d of the long presses: they waited behind them",
			pingAfter, sixthAfter)
	}

	wg.Wait()
	close(results)
	// A call answered ok ran; one answered tool_timeout may have run (its
	// deadline passed while it was opened or ran); refused ones never ran.
	ok, mayHave := make([]int, phones), make([]int, phones)
	codes := map[string]int{}
	for o := range results {
		codes[o.code]++
		switch o.code {
		case "":
			ok[o.phone]++
			mayHave[o.phone]++
		case connector.CodeToolTimeout:
			mayHave[o.phone]++
		}
	}
	for code, n := range codes {
		switch code {
		case "", connector.CodeRateLimited, tools.CodeDeviceBusy, connector.CodeToolTimeout:
		default:
			t.Errorf("%d long presses answered %s; want success, rate_limited, device_busy or tool_timeout", n, code)
		}
	}
	// Each channel admits 16 in flight: the other 4 of its 20 are refused.
	if got, want := codes[connector.CodeRateLimited], phones*(perPhone-16); got != want {
		t.Errorf("rate_limited = %d, want %d (outcomes %v)", got, want, codes)
	}
	for i, d := range env.Devices[:phones] {
		ran := strings.Count(strings.Join(deviceCommands(d), "\n"), "touch long_press")
		if ran < ok[i] || ran > mayHave[i] {
			t.Errorf("phone %d ran %d long presses; %d answered ok, %d ok or tool_timeout: a refused call ran", i, ran, ok[i], mayHave[i])
		}
		if r := p.deviceRow(t, d.Serial()); r.State != "device" || !r.Bound {
			t.Errorf("phone %d after the flood: %+v", i, r)
		}
	}
	t.Logf("outcomes %v; ping after %d, sixth channel after %d successful long presses", codes, pingAfter, sixthAfter)
}
