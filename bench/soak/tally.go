package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
)

// Outcomes beyond the protocol's error codes.
const (
	outOK            = "ok"
	outClientTimeout = "client_timeout" // no answer before the client's deadline
	outSocketClosed  = "socket_closed"  // the socket went away before the answer
	outDropped       = "dropped"        // we dropped the socket with the call in flight
	outClosed1009    = "closed_1009"    // the server closed the socket: message too big
	outServerClosed  = "closed_by_server"
	outLeftOpen      = "left_open"
	outOtherError    = "client_error"
)

// scenario names one kind of traffic and the outcomes it may see; anything
// else is unexpected and flagged.
type scenario struct {
	name, what string
	expected   []string
}

// The scenarios, in report order. "@fault" variants count calls started
// between an adb server kill and the phones being back (plus a margin):
// only there may a bound phone be device_offline.
// A call the kill cuts off mid-way (its adb connection reset while the
// phone is still "device" in tracking) may have acted: it is
// tool_invoke_failed, never the retry-safe device_offline.
var scenarios = []scenario{
	{"steady", "status, screenshot + download, tap, long press on bound channels", []string{outOK}},
	{"steady@fault", "the same, overlapping an adb server kill", []string{outOK, "device_offline", "device_busy", "tool_timeout", "tool_invoke_failed"}},
	{"probe", "android_device_status every few s on every load channel (bound or not)", []string{outOK, "connection_not_authenticated"}},
	{"probe@fault", "the same, overlapping an adb server kill", []string{outOK, "connection_not_authenticated", "device_offline", "device_busy", "tool_timeout", "tool_invoke_failed"}},
	{"download", "GET download_url of each screenshot", []string{outOK}},
	{"rebind", "auth.logout, then pair the phone with another channel", []string{outOK}},
	// The 16 admitted 600 ms presses queue on the phone for about 10 s,
	// near an input's 10.6 s deadline (queueing included): on a loaded
	// machine the last may never start (device_busy) or start too late to
	// finish (tool_timeout).
	{"burst_inflight", "long presses at once on one bound channel, over its 16 in flight", []string{outOK, "rate_limited", "device_busy", "tool_timeout"}},
	{"burst_unbound", "quick calls at once on an unbound channel, over the 120/min bucket", []string{"connection_not_authenticated", "rate_limited"}},
	{"oversized_id", "ids over 256 bytes, a 900 KB tool_call_id, broken JSON", []string{"invalid_packet"}},
	{"oversized_frame", "a frame over 1 MiB", []string{outClosed1009}},
	{"drop", "long press in flight, then the socket dropped without a close frame", []string{outDropped}},
	{"drop_replay", "the dropped call's tool_call_id again after reconnect + channel restore", []string{outOK}},
	{"drop_restore", "hello with the same connector_id + channel.open restore after a drop", []string{outOK}},
	{"idle_http", "TCP connections left silent, half a header, or idle after a keep-alive request", []string{outServerClosed, outLeftOpen}},
	{"stray_error", "error packets answering no request (the oversized request_id ones)", []string{"invalid_packet"}},
}

// tally counts outcomes per scenario. Safe for concurrent use.
type tally struct {
	mu     sync.Mutex
	counts map[string]map[string]int
	// examples keeps the first message of each unexpected outcome.
	examples map[string]string
}

func newTally() *tally {
	return &tally{counts: map[string]map[string]int{}, examples: map[string]string{}}
}

func (t *tally) add(scen, outcome string) { t.addMsg(scen, outcome, "") }

func (t *tally) addMsg(scen, outcome, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.counts[scen]
	if m == nil {
		m = map[string]int{}
		t.counts[scen] = m
	}
	m[outcome]++
	k := scen + "/" + outcome
	if _, ok := t.examples[k]; !ok && msg != "" && !expected(scen, outcome) {
		t.examples[k] = msg
	}
}

// addPacket counts the answer to a request: ok, its error code, or what
// went wrong on the client's side.
func (t *tally) addPacket(scen string, p *connector.Packet, err error) {
	o, msg := classify(p, err)
	t.addMsg(scen, o, msg)
}

// classify names the outcome of a request.
func classify(p *connector.Packet, err error) (outcome, msg string) {
	var de *benchtb.DownloadError
	switch {
	case errors.Is(err, xagenttest.ErrClosed):
		return outSocketClosed, err.Error()
	case errors.As(err, &de):
		return fmt.Sprintf("http_%d", de.Status), err.Error()
	case err != nil && strings.Contains(err.Error(), "deadline exceeded"):
		return outClientTimeout, err.Error()
	case err != nil:
		return outOtherError, err.Error()
	case p.Error != nil:
		return p.Error.Code, p.Error.Message
	}
	return outOK, ""
}

func expected(scen, outcome string) bool {
	for _, s := range scenarios {
		if s.name == scen {
			return slices.Contains(s.expected, outcome)
		}
	}
	return false
}

// OutcomeRow is one line of the outcome table.
type OutcomeRow struct {
	Scenario string `json:"scenario"`
	Outcome  string `json:"outcome"`
	Count    int    `json:"count"`
	Expected bool   `json:"expected"`
	Example  string `json:"example,omitempty"`
}

// rows returns the counts in scenario order, outcomes sorted by name.
func (t *tally) rows() []OutcomeRow {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []OutcomeRow
	for _, s := range scenarios {
		m := t.counts[s.name]
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, OutcomeRow{Scenario: s.name, Outcome: k, Count: m[k], Expected: slices.Contains(s.expected, k),
				Example: t.examples[s.name+"/"+k]})
		}
	}
	return out
}

func printOutcomes(w io.Writer, rows []OutcomeRow) {
	fmt.Fprintf(w, "%-16s %-30s %8s  %s\n", "scenario", "outcome", "count", "expected")
	for _, r := range rows {
		exp := "yes"
		if !r.Expected {
			exp = "NO"
			if r.Example != "" {
				exp += ": " + r.Example
			}
		}
		fmt.Fprintf(w, "%-16s %-30s %8d  %s\n", r.Scenario, r.Outcome, r.Count, exp)
	}
}
