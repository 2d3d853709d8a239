package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/shell"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
)

// docs/agent-protocol.md is tested text: TestAgentProtocolDoc takes its
// blocks in order and plays them against a real serve with two virtual
// phones. A ```json block with a request type is sent as written; a block
// with an .ack type is checked against the answer to the request before
// it, one with a .push type against the next matching push; a `$
// adb-connector ...` line runs that operator command and checks the lines
// the document shows under it; a `curl` line fetches its URL. Answers are
// checked for what the document shows (an object may show fewer fields).
// Ids the server makes up (connector_id, channel ids, codes, file refs,
// hints) are learned from the first answer that shows them, and replace
// the document's in what follows; times and sizes are not compared.

// The document's phones, base URL and adb server, replaced by the test's.
const (
	docPhone1   = "127.0.0.1:40707"
	docPhone2   = "127.0.0.1:40711"
	docBaseURL  = "http://127.0.0.1:8080"
	docADB      = "127.0.0.1:5037"
	docWalkPath = "../../docs/agent-protocol.md"
)

// learnedKeys hold ids the server makes up: their value in the document
// stands for whatever the server answered.
var learnedKeys = map[string]bool{
	"connector_id": true, "connector_channel_id": true, "auth_session_id": true, "qr_code_text": true,
	"file_ref": true, "download_url": true, "filename": true, "serial_hint": true, "account_hint": true,
	"display_name": true, "screen_id": true,
}

// unchecked keys vary from run to run and are not learned.
var uncheckedKeys = map[string]bool{"time": true, "expires_at": true, "byte_size": true, "packet_id": true}

// docBlock is one fenced block of the document.
type docBlock struct {
	lang, text string
	line       int
}

func docBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	var cur *docBlock
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &docBlock{lang: strings.TrimPrefix(line, "```"), line: i + 1}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	return out
}

// docWalk is the state of one walk: the server, the client and what was
// learned.
type docWalk struct {
	t       *testing.T
	p       *serveProc
	c       *xagenttest.Client
	subs    map[string]string // document value -> this run's
	lastAck map[string]any
	lastReq string
	// lastPacket is the last request sent, as sent.
	lastPacket *connector.Packet
}

// sub replaces every document value learned so far, longest first.
func (w *docWalk) sub(s string) string {
	keys := slices.Collect(maps.Keys(w.subs))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	pairs := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		pairs = append(pairs, k, w.subs[k])
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

func TestAgentProtocolDoc(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	p, devs := startServeVirtual(t, t.TempDir(), env.ServerAddr, nil, "--virtual-devices", "2")
	t.Setenv(dataDirEnv, p.DataDir)
	for _, d := range devs {
		p.waitOnline(t, d.Serial())
	}
	c := xagenttest.New(t, p.URL, xagenttest.Options{APIKey: e2eKey})
	w := &docWalk{t: t, p: p, c: c, subs: map[string]string{
		docBaseURL: p.URL, docPhone1: devs[0].Serial(), docPhone2: devs[1].Serial(), docADB: env.ServerAddr,
	}}
	steps := 0
	for _, b := range docBlocks(t, docWalkPath) {
		switch {
		case b.lang == "json":
			w.jsonBlock(b)
		case strings.HasPrefix(b.text, "$ adb-connector "):
			w.commands(b)
		case strings.HasPrefix(b.text, "curl "):
			w.curl(b)
		default:
			t.Fatalf("docs/agent-protocol.md:%d: a block the walk does not know (json, $ adb-connector, curl)", b.line)
		}
		steps++
	}
	if steps < 20 {
		t.Errorf("the walk played %d blocks, want the whole session", steps)
	}
}

func (w *docWalk) jsonBlock(b docBlock) {
	t := w.t
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(b.text), &doc); err != nil {
		t.Fatalf("docs/agent-protocol.md:%d: not a JSON object: %v", b.line, err)
	}
	typ, _ := doc["type"].(string)
	ctx, cancel := context.WithTimeout(t.Context(), setupWait)
	defer cancel()
	switch {
	case strings.HasSuffix(typ, ".push"):
		// Pushes queue up: take them in order until one shows what the
		// document does.
		var seen []string
		for {
			pk, err := w.c.WaitPush(ctx, typ)
			if err != nil {
				t.Fatalf("docs/agent-protocol.md:%d: no %s as shown (saw %s): %v", b.line, typ, strings.Join(seen, "\n"), err)
			}
			raw, _ := json.Marshal(pk)
			var got map[string]any
			json.Unmarshal(raw, &got)
			if err := w.match(doc, got, "", false); err == nil {
				w.match(doc, got, "", true)
				return
			}
			seen = append(seen, string(raw))
		}
	case strings.HasSuffix(typ, ".ack") || typ == "error":
		if w.lastAck == nil {
			t.Fatalf("docs/agent-protocol.md:%d: an answer with no request before it", b.line)
		}
		err := w.match(doc, w.lastAck, "", true)
		if err != nil && w.settle(ctx) {
			err = w.match(doc, w.lastAck, "", true)
		}
		if err != nil {
			got, _ := json.Marshal(w.lastAck)
			t.Fatalf("docs/agent-protocol.md:%d: the answer to %s differs: %v\nserver sent: %s", b.line, w.lastReq, err, got)
		}
		w.lastAck = nil
	default:
		text := w.sub(b.text)
		p, err := connector.DecodePacket([]byte(text))
		if err != nil {
			t.Fatalf("docs/agent-protocol.md:%d: the packet is not a valid envelope: %v", b.line, err)
		}
		w.lastPacket = p
		w.lastReq = fmt.Sprintf("%s (line %d)", typ, b.line)
		w.send(ctx)
	}
}

// send sends the last request and keeps its answer.
func (w *docWalk) send(ctx context.Context) {
	ans, err := w.c.RequestPacket(ctx, w.lastPacket)
	if err != nil {
		w.t.Fatalf("%s: %v", w.lastReq, err)
	}
	raw, _ := json.Marshal(ans)
	w.lastAck = map[string]any{}
	json.Unmarshal(raw, &w.lastAck)
}

// settle handles a phone bound before the server heard it answer (it
// attached a moment ago): the answer shows it offline, and a connected
// push follows, as the document says. It waits for that push and sends
// the request again; false when the answer showed no such phone.
func (w *docWalk) settle(ctx context.Context) bool {
	pl, _ := w.lastAck["payload"].(map[string]any)
	d, _ := pl["connection_descriptor"].(map[string]any)
	c, _ := d["connection"].(map[string]any)
	if c["status"] != "offline" {
		return false
	}
	for {
		pk, err := w.c.WaitPush(ctx, connector.TypeDescriptorPush)
		if err != nil {
			w.t.Fatalf("%s: the phone stayed offline: %v", w.lastReq, err)
		}
		if pk.ChannelID == c["connector_channel_id"] && strings.Contains(string(pk.Payload), `"status":"connected"`) {
			w.send(ctx)
			return true
		}
	}
}

// match checks that got holds what doc shows. With learn, document values
// of learnedKeys are learned from got; without, a learned key only has to
// be present.
func (w *docWalk) match(doc, got any, path string, learn bool) error {
	switch d := doc.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: got %v, want an object", path, got)
		}
		// Learned values first: a message may quote one (a request code).
		for pass := range 2 {
			for k, dv := range d {
				if learnedKeys[k] != (pass == 0) || uncheckedKeys[k] || k == "..." {
					continue
				}
				gv, present := g[k]
				if !present {
					return fmt.Errorf("%s.%s: absent", path, k)
				}
				if ds, ok := dv.(string); ok && learnedKeys[k] {
					gs, _ := gv.(string)
					if prev, known := w.subs[ds]; known && prev != gs {
						return fmt.Errorf("%s.%s: %q, want %q (learned as %q)", path, k, gs, prev, ds)
					}
					if learn {
						w.subs[ds] = gs
					}
					continue
				}
				if err := w.match(dv, gv, path+"."+k, learn); err != nil {
					return err
				}
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(d) {
			return fmt.Errorf("%s: got %v, want %d items", path, got, len(d))
		}
		for i := range d {
			if err := w.match(d[i], g[i], fmt.Sprintf("%s[%d]", path, i), learn); err != nil {
				return err
			}
		}
		return nil
	case string:
		if gs, _ := got.(string); gs != w.sub(d) {
			return fmt.Errorf("%s: got %q, want %q", path, got, w.sub(d))
		}
		return nil
	default:
		if fmt.Sprint(doc) != fmt.Sprint(got) {
			return fmt.Errorf("%s: got %v, want %v", path, got, doc)
		}
		return nil
	}
}

// docClock stands for a wall-clock time in an operator command's output.
var docClock = regexp.MustCompile(`\d\d:\d\d UTC`)

// commands runs each `$ adb-connector` line of b and checks that the
// lines under it are printed; a line of one word the server made up (a
// pairing code) is learned.
func (w *docWalk) commands(b docBlock) {
	t := w.t
	t.Helper()
	type cmd struct {
		line string
		want []string
	}
	var cmds []cmd
	for _, l := range strings.Split(strings.TrimRight(b.text, "\n"), "\n") {
		if s, ok := strings.CutPrefix(l, "$ "); ok {
			cmds = append(cmds, cmd{line: s})
		} else if len(cmds) > 0 {
			cmds[len(cmds)-1].want = append(cmds[len(cmds)-1].want, l)
		}
	}
	for _, c := range cmds {
		args, err := shell.Fields(w.sub(c.line), nil)
		if err != nil {
			t.Fatalf("docs/agent-protocol.md:%d: %q: %v", b.line, c.line, err)
		}
		var out, errOut bytes.Buffer
		if err := run(args[1:], &out, &errOut); err != nil {
			t.Fatalf("docs/agent-protocol.md:%d: %s: %v\n%s", b.line, c.line, err, errOut.String())
		}
		got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if len(got) != len(c.want) {
			t.Fatalf("docs/agent-protocol.md:%d: %s printed %q, want %q", b.line, c.line, got, c.want)
		}
		for i, want := range c.want {
			want = w.sub(want)
			g := docClock.ReplaceAllString(got[i], "HH:MM UTC")
			want = docClock.ReplaceAllString(want, "HH:MM UTC")
			if !strings.Contains(want, " ") && !strings.Contains(g, " ") {
				w.subs[c.want[i]] = g
				continue
			}
			if g != want {
				t.Errorf("docs/agent-protocol.md:%d: %s printed %q, want %q", b.line, c.line, g, want)
			}
		}
	}
}

// curl fetches the URL of each curl line and wants a 200.
func (w *docWalk) curl(b docBlock) {
	t := w.t
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(b.text), "\n") {
		l, _, _ = strings.Cut(l, "#")
		f, err := shell.Fields(w.sub(l), nil)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(f, func(s string) bool { return strings.HasPrefix(s, "http") })
		if i < 0 {
			t.Fatalf("docs/agent-protocol.md:%d: %q names no URL", b.line, l)
		}
		resp, err := http.Get(f[i])
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("docs/agent-protocol.md:%d: %s: %s", b.line, l, resp.Status)
		}
	}
}
