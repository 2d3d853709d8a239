package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/redact"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "rewrite docs/console/*.png from the browser test")

// consoleToken is the operator token of the console under test.
const consoleToken = "console-e2e-token-0f1e2d3c4b5a6978"

// consoleConfig tags the shelf and bounds leases, so the pages show tags
// and lease time left.
const consoleConfig = `tags:
  - match: {model: "Pixel*"}
    tags: [shelf-a, virtual]
policies:
  default:
    rate_per_minute: 240
    lease:
      idle_timeout: 30m
      max_duration: 8h
`

// consoleServe is a serve with two phones on a private adb server and the
// console on.
type consoleServe struct {
	*serveProc
	env     *adbtest.Env
	console string // http://127.0.0.1:PORT
	config  string // the config file, reloaded every 100 ms
}

func startConsoleServe(t *testing.T) *consoleServe {
	t.Helper()
	env := adbtest.Start(t, adbtest.Options{Devices: 2})
	dir := t.TempDir()
	tok, cfgFile := filepath.Join(dir, "console-token"), filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(tok, []byte(consoleToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgFile, []byte(consoleConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := &consoleServe{env: env, config: cfgFile}
	cs.serveProc, _ = startServeTuned(t, t.TempDir(), env.ServerAddr, nil, func(c *serveConfig) {
		c.Console.onListen = func(addr string) { cs.console = "http://" + addr }
	}, "--console-listen", "127.0.0.1:0", "--console-token-file", tok, "--config", cfgFile, "--config-poll", "100ms")
	return cs
}

// browser is a headless Chromium tab that records every request it makes
// and every script error or Content-Security-Policy refusal.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	requests []string
	problems []string
	// logs returns the server's log, printed when a step fails.
	logs func() string
}

// chromiumPath finds Debian's chromium; the test fails without it, since
// `make test-deps` installs it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: run `make test-deps` (scripts/ensure-chromium.sh) or `sudo apt-get install -y chromium`")
	return ""
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("no-pings", true),
		chromedp.Flag("disable-domain-reliability", true), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browser{}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(b.listen))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	b.ctx = ctx
	return b
}

// listen runs in the tab's event loop: it records, nothing more.
func (b *browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, ev.Request.URL)
	case *runtime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+ev.ExceptionDetails.Text)
	case *cdplog.EventEntryAdded:
		if strings.Contains(ev.Entry.Text, "Content Security Policy") || strings.Contains(ev.Entry.Text, "Refused to") {
			b.problems = append(b.problems, "console: "+ev.Entry.Text)
		}
	}
}

// check fails the test on a request to anything but the console and on a
// script error or CSP refusal.
func (b *browser) check(t *testing.T, console string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.requests {
		if r != console && !strings.HasPrefix(r, console+"/") {
			t.Errorf("the browser requested %s, outside the console server %s", r, console)
		}
	}
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}

// count returns how many requests so far had this path prefix.
func (b *browser) count(prefix string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, r := range b.requests {
		if u, err := url.Parse(r); err == nil && strings.HasPrefix(u.RequestURI(), prefix) {
			n++
		}
	}
	return n
}

// do runs steps, failing the test (with what) after setupWait.
func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, setupWait)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		if b.logs != nil {
			t.Logf("server log:\n%s", b.logs())
		}
		t.Fatalf("%s: %v", what, err)
	}
}

func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, setupWait)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

func (b *browser) location(t *testing.T) string {
	t.Helper()
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// screenshot saves the page, whole, at width px, as docs/console/name.png
// when -update-screenshots is given; it waits for the images first.
func (b *browser) screenshot(t *testing.T, name string, width int64) {
	t.Helper()
	b.do(t, "viewport", chromedp.EmulateViewport(width, 800))
	ctx, cancel := context.WithTimeout(b.ctx, setupWait)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)`)); err != nil {
		t.Fatalf("images of %s: %v", name, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if *updateScreenshots {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "console", name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.do(t, "viewport", chromedp.EmulateViewport(1280, 900))
}

// poll waits until the page's expression is true.
func (b *browser) poll(t *testing.T, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, setupWait)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr)); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// waitCount waits until at least n requests had this path prefix: the
// page's script is what makes them.
func (b *browser) waitCount(t *testing.T, prefix string, n int) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(setupWait)
	for b.count(prefix) < n {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%d requests of %s, want %d", b.count(prefix), prefix, n)
		}
	}
}

// TestConsoleBrowser drives the operator console in headless Chromium over
// the real serve stack: refused without the token, log in, see the
// virtual phones, issue a pairing code and see the phone bound once an
// agent pairs, watch an audit row arrive live, refused with a forged CSRF
// token (the phone stays bound), answer an agent's question
// (android_ask_operator), unbind; every page works without
// JavaScript, and the browser fetches nothing from outside the server.
func TestConsoleBrowser(t *testing.T) {
	t.Parallel()
	cs := startConsoleServe(t)
	b := newBrowser(t)
	b.logs = cs.Logs
	c := cs.console
	serials := []string{cs.env.Devices[0].Serial(), cs.env.Devices[1].Serial()}
	key := adb.DeviceKey(cs.env.ServerAddr, serials[0])
	devicePage := c + "/device?d=" + url.QueryEscape(key)
	defer b.check(t, c)

	// Without a session every page sends the browser to the login page, and
	// a wrong token is refused.
	b.do(t, "open the console", chromedp.Navigate(c+"/"), chromedp.WaitVisible(chromedp.ID("token")))
	if loc := b.location(t); loc != c+"/login" {
		t.Fatalf("without a session: at %s, want the login page", loc)
	}
	b.screenshot(t, "login", 1280)
	b.do(t, "wrong token", chromedp.SendKeys(chromedp.ID("token"), "not-the-token-at-all"),
		chromedp.Submit(chromedp.ID("token")), chromedp.WaitVisible(chromedp.CSS(`p[role="alert"]`)))
	if msg := b.text(t, `p[role="alert"]`); !strings.Contains(msg, "Wrong token") {
		t.Fatalf("wrong token: %q", msg)
	}

	// Log in: the two virtual phones are listed, free, with their tags.
	b.do(t, "log in", chromedp.SendKeys(chromedp.ID("token"), consoleToken),
		chromedp.Submit(chromedp.ID("token")), chromedp.WaitVisible(chromedp.ID("devlist")))
	list := b.text(t, "#devlist")
	for _, s := range serials {
		if !strings.Contains(list, s) {
			t.Errorf("devices page lists no %s:\n%s", s, list)
		}
	}
	if !strings.Contains(list, "shelf-a") || !strings.Contains(list, "free") {
		t.Errorf("devices page shows no tag or free phone:\n%s", list)
	}
	b.wantCounts(t, 2, 0, 0)
	b.fits360(t, "devices page")
	titles := b.titles(t)
	// Thumbnails on screen are taken again every 2 s by the page's script;
	// one scrolled out of sight is not.
	b.do(t, "a small screen", chromedp.EmulateViewport(360, 200),
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight)`))
	thumbs, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("img[data-thumb]"), i => i.getAttribute("data-thumb") + "&t=")`))
	if err != nil || len(thumbs) != 2 {
		t.Fatalf("thumbnails %q: %v", thumbs, err)
	}
	top, bottom := thumbs[0], thumbs[1] // scrolled away, on screen
	hidden, shown := b.count(top), b.count(bottom)
	b.waitCount(t, bottom, shown+3)
	if n := b.count(top); n > hidden+1 {
		t.Errorf("the thumbnail out of sight was taken %d times while the one on screen was taken 3 times", n-hidden)
	}
	b.do(t, "a desk screen", chromedp.EmulateViewport(1280, 900))

	// Issue a pairing code on the device page; an agent pairs with it and
	// the page (not reloaded) shows the phone bound.
	b.do(t, "device page", chromedp.Navigate(devicePage), chromedp.WaitVisible(chromedp.ID("pair")))
	b.do(t, "issue a pairing code", chromedp.Click(chromedp.ID("pair")), chromedp.WaitVisible(chromedp.ID("pair-code")))
	code := b.text(t, "#pair-code")
	if len(code) < 8 {
		t.Fatalf("pairing code %q", code)
	}
	a := newAgent(t, cs.serveProc, "")
	ch := a.open(t)
	if ack := startPairing(t, a, ch, serials[0], code); ack.Status != "authenticated" {
		t.Fatalf("pairing with the console's code: %+v", ack)
	}
	b.do(t, "bound shown live", chromedp.WaitVisible(chromedp.CSS("#status .bound")))
	label := redact.ChannelLabel(ch)
	if st := b.text(t, "#status"); !strings.Contains(st, label) || !strings.Contains(st, "connected") ||
		!strings.Contains(st, "29m") && !strings.Contains(st, "30m") {
		t.Errorf("status after pairing shows no holder label, connection or lease left:\n%s", st)
	}
	// A phone another channel holds is offered no pairing code nor approval.
	b.do(t, "hand out withheld", chromedp.WaitVisible(chromedp.ID("held")))
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#pair, #code").length`)); err != nil || n != 0 {
		t.Errorf("a held phone's page offers a pairing code or an approval (%d, %v)", n, err)
	}
	if pk := a.invoke(t, ch, "android_device_status", map[string]any{}); pk.Error != nil {
		t.Fatalf("device status: %+v", pk.Error)
	}
	b.do(t, "last calls shown live", chromedp.WaitVisible(chromedp.CSS("#calls table")))
	b.poll(t, "last call in the holder, live", `document.querySelector("#status .lastcall")?.textContent.startsWith("android_device_status ok")`)
	// Again, so the screenshots show no (spent) pairing code.
	b.do(t, "device page", chromedp.Navigate(devicePage), chromedp.WaitVisible(chromedp.CSS("#calls table")))
	b.screenshot(t, "device", 1280)
	b.screenshot(t, "device-360", 360)
	b.do(t, "devices page", chromedp.Navigate(c+"/"), chromedp.WaitVisible(chromedp.CSS("#devlist .bound")))
	if list := b.text(t, "#devlist"); !strings.Contains(list, label) || !strings.Contains(list, "connected") ||
		!strings.Contains(list, "android_device_status") {
		t.Errorf("devices page shows no holder (label, connection, last call):\n%s", list)
	}
	b.wantCounts(t, 1, 1, 0)
	// The filter: only the phone in use.
	b.do(t, "filter in use", chromedp.Navigate(c+"/?show=in-use"), chromedp.WaitVisible(chromedp.ID("devlist")))
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#devlist article").length`)); err != nil || n != 1 {
		t.Errorf("filter in use: %d cards, %v; want 1", n, err)
	}
	b.do(t, "devices page", chromedp.Navigate(c+"/"), chromedp.WaitVisible(chromedp.CSS("#devlist .bound")))
	b.screenshot(t, "devices", 1280)
	b.screenshot(t, "devices-360", 360)

	// The audit page's tail: a call made while it is open appears at the top.
	b.do(t, "audit page", chromedp.Navigate(c+"/audit"), chromedp.WaitReady(chromedp.ID("audit-rows")))
	if pk := a.invoke(t, ch, "android_press_key", map[string]any{"key": "home"}); pk.Error != nil {
		t.Fatalf("press key: %+v", pk.Error)
	}
	b.do(t, "audit row live", chromedp.WaitVisible(chromedp.CSS("#audit-rows tr.new")))
	if row := b.text(t, "#audit-rows tr.new"); !strings.Contains(row, "android_press_key") || !strings.Contains(row, label) {
		t.Errorf("live audit row: %q", row)
	}
	b.screenshot(t, "audit", 1280)
	b.fits360(t, "audit page")
	b.do(t, "a phone's audit", chromedp.EmulateViewport(360, 800))
	b.poll(t, "the outcome of the newest call seen at 360 px without scrolling sideways",
		`(() => { const r = document.querySelector("#audit-rows tr .outcome").getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= 360; })()`)
	b.do(t, "a desk screen", chromedp.EmulateViewport(1280, 900))
	b.do(t, "device page", chromedp.Navigate(devicePage), chromedp.WaitVisible(chromedp.CSS("#calls table")))
	b.fits360(t, "device page")

	// The agent asks the operator: the banner appears live on the page open
	// (the policy page), links to the device page, where the operator types
	// the answer; the agent's call returns it.
	b.do(t, "policy page", chromedp.Navigate(c+"/policy"), chromedp.WaitReady(chromedp.ID("questions-banner")))
	asked := a.ask(t, ch, map[string]any{"message": "Please type the code the bank sent", "timeout_ms": 120000, "expect": "text"})
	b.do(t, "question banner live", chromedp.WaitVisible(chromedp.CSS("#questions-banner .question")))
	if msg := b.text(t, "#questions-banner .question"); !strings.Contains(msg, "Please type the code the bank sent") || !strings.Contains(msg, label) {
		t.Errorf("banner: %q", msg)
	}
	b.do(t, "to the question", chromedp.Click(chromedp.CSS("#questions-banner .answer-link")), chromedp.WaitVisible(chromedp.CSS("#asked textarea")))
	if u, err := url.Parse(b.location(t)); err != nil || u.Path != "/device" || u.Query().Get("d") != key {
		t.Errorf("the banner led to %v (%v), want the device page", u, err)
	}
	if q := b.text(t, "#asked .message"); q != "Please type the code the bank sent" {
		t.Errorf("device page question %q", q)
	}
	b.screenshot(t, "question", 1280)
	b.do(t, "type the answer", chromedp.SendKeys(chromedp.CSS("#asked textarea"), "774411"))
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS("#asked form.answer button"))); err != nil {
		t.Fatalf("answer: %v", err)
	}
	if r := asked.result(t); !r.Answered || r.Reply == nil || *r.Reply != "774411" {
		t.Errorf("the agent got %+v, want the operator's answer", r)
	}
	if msg := b.text(t, `p[role="status"]`); !strings.Contains(msg, "Answered") {
		t.Errorf("after answering: %q", msg)
	}
	if strings.Contains(cs.Logs(), "774411") {
		t.Error("the console's answer is in the server log")
	}
	// A question that wants done has no text field; Decline ends it
	// unanswered. The device page shows it live.
	asked = a.ask(t, ch, map[string]any{"message": "Touch the fingerprint sensor", "timeout_ms": 120000, "expect": "done"})
	b.do(t, "question on the device page, live", chromedp.WaitVisible(chromedp.CSS(`#asked form[action="/question/decline"] button`)))
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#asked textarea").length`)); err != nil || n != 0 {
		t.Errorf("a question that wants done offers a text field (%d, %v)", n, err)
	}
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(`#asked form[action="/question/decline"] button`))); err != nil {
		t.Fatalf("decline: %v", err)
	}
	if r := asked.result(t); r.Answered || r.Reply != nil {
		t.Errorf("declined in the console: the agent got %+v", r)
	}
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#questions-banner .question, #asked .question").length`)); err != nil || n != 0 {
		t.Errorf("the answered question is still shown (%d, %v)", n, err)
	}

	// A forged CSRF token is refused and nothing is done: still bound.
	b.do(t, "device page", chromedp.Navigate(devicePage), chromedp.WaitEnabled(chromedp.ID("unbind")),
		chromedp.SetAttributeValue(chromedp.CSS(`#takeback input[name="csrf"]`), "value", "forged"))
	resp, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.ID("unbind")))
	if err != nil {
		t.Fatalf("unbind with a forged CSRF token: %v", err)
	}
	if resp.Status != http.StatusForbidden {
		t.Errorf("unbind with a forged CSRF token: HTTP %d, want 403", resp.Status)
	}
	if !cs.deviceRow(t, serials[0]).Bound {
		t.Fatal("the phone was unbound by a request with a forged CSRF token")
	}

	// Unbind: the page says so, the phone is free, the agent is told. The
	// phone fails every command, so its reset fails: the page shows
	// needs-reset, and "Reset now" (the phone healed) clears it.
	cs.env.Devices[0].Android().FailNext(1000)
	b.do(t, "unbind", chromedp.Navigate(devicePage), chromedp.WaitEnabled(chromedp.ID("unbind")),
		chromedp.Click(chromedp.ID("unbind")), chromedp.WaitVisible(chromedp.CSS("#status .free")))
	if msg := b.text(t, `p[role="status"]`); !strings.Contains(msg, "Unbound") {
		t.Errorf("after unbind: %q", msg)
	}
	a.waitStatus(t, ch, "revoked", setupWait)
	if cs.deviceRow(t, serials[0]).Bound {
		t.Fatal("still bound after the console's unbind")
	}
	b.poll(t, "needs-reset shown live", `document.querySelector("#status .st-reset")?.textContent === "needs-reset"`)
	cs.env.Devices[0].Android().FailNext(0)
	// The click posts a form: RunResponse waits for the page it leads to,
	// since the page before has a status line too.
	b.do(t, "reset now", chromedp.WaitEnabled(chromedp.ID("reset-now")))
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.ID("reset-now"))); err != nil {
		t.Fatalf("reset now: %v", err)
	}
	b.poll(t, "reset done, shown live", `document.querySelector("#status .st-reset") === null`)
	if r := cs.deviceRow(t, serials[0]); r.Reset != "" {
		t.Errorf("after Reset now: reset %q", r.Reset)
	}

	// A device_request waits on the other phone's page, live; the operator
	// approves it there and the requesting channel holds that phone.
	other := c + "/device?d=" + url.QueryEscape(adb.DeviceKey(cs.env.ServerAddr, serials[1]))
	b.do(t, "other device page", chromedp.Navigate(other), chromedp.WaitVisible(chromedp.ID("requests")))
	// Disabled buttons look disabled: the free phone's Unbind is grey, not red.
	b.poll(t, "a disabled Unbind looks disabled", `(() => { const s = getComputedStyle(document.getElementById("unbind"));
		return document.getElementById("unbind").disabled && s.backgroundColor === "rgb(228, 231, 235)" && s.cursor === "not-allowed"; })()`)
	ch2 := a.open(t)
	_, start := a.request(t, connector.TypeAuthStart, ch2, map[string]any{"flow_id": auth.FlowRequest})
	if start.Status != "pending" || start.QRCodeText == "" {
		t.Fatalf("auth.start device_request: %+v", start)
	}
	// The waiting code is on the Devices page too.
	b.do(t, "devices page", chromedp.Navigate(c+"/"), chromedp.WaitVisible(chromedp.CSS("#requests .code")))
	if got := b.text(t, "#requests li .code"); got != start.QRCodeText {
		t.Errorf("devices page: waiting request code %q, want %q", got, start.QRCodeText)
	}
	b.do(t, "other device page", chromedp.Navigate(other), chromedp.WaitVisible(chromedp.ID("requests")))
	b.do(t, "request shown live", chromedp.WaitVisible(chromedp.CSS("#requests li button")))
	if got := b.text(t, "#requests li .code"); got != start.QRCodeText {
		t.Errorf("waiting request code %q, want %q", got, start.QRCodeText)
	}
	b.do(t, "approve", chromedp.Click(chromedp.CSS("#requests li button")), chromedp.WaitVisible(chromedp.CSS("#status .bound")))
	a.waitStatus(t, ch2, "connected", setupWait)
	if st := b.text(t, "#status"); !strings.Contains(st, redact.ChannelLabel(ch2)) {
		t.Errorf("after approval the phone is not held by %s:\n%s", ch2, st)
	}

	// The policy page shows the file in force, then the refusal of a bad
	// reload (the file in force stays).
	if err := os.WriteFile(cs.config, []byte("tags: [not a rule\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.waitPolicyError(t, c)
	if y := b.text(t, "pre.yaml"); !strings.Contains(y, "shelf-a") || !strings.Contains(y, "idle_timeout: 30m") {
		t.Errorf("policy in force:\n%s", y)
	}
	b.screenshot(t, "policy", 1280)

	// A phone that turns unauthorized: its card keeps its title (model
	// and short serial), shows the doctor's fix and counts as needing
	// attention.
	cs.env.Devices[1].SetUnauthorized(true)
	cs.env.WaitState(cs.env.Devices[1], "unauthorized")
	b.do(t, "devices page", chromedp.Navigate(c+"/"), chromedp.WaitVisible(chromedp.ID("devlist")))
	b.poll(t, "the doctor's fix on the unauthorized card", `document.querySelector("#devlist .fix")?.textContent.includes("Allow USB debugging")`)
	if got := b.titles(t); strings.Join(got, "|") != strings.Join(titles, "|") {
		t.Errorf("card titles %q after the phone turned unauthorized, were %q", got, titles)
	}
	b.wantCounts(t, 1, 0, 1)
	b.screenshot(t, "devices-attention", 1280)

	// Without JavaScript the forms still work: a pairing code is issued.
	if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	b.do(t, "no-JS pairing code", chromedp.Navigate(devicePage), chromedp.Click(chromedp.ID("pair")),
		chromedp.WaitVisible(chromedp.ID("pair-code")))
}

// titles are the devices page's card titles.
func (b *browser) titles(t *testing.T) []string {
	t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#devlist h2"), h => h.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// wantCounts checks the counts at the top of the devices page.
func (b *browser) wantCounts(t *testing.T, free, inUse, attention int) {
	t.Helper()
	want := fmt.Sprintf("%d/%d/%d", free, inUse, attention)
	b.poll(t, "counts "+want, `["n-free", "n-inuse", "n-attention"].map(id => document.getElementById(id).textContent).join("/") === "`+want+`"`)
}

// fits360 checks that the page is usable 360 px wide: nothing to scroll
// sideways.
func (b *browser) fits360(t *testing.T, what string) {
	t.Helper()
	b.do(t, "a phone's screen", chromedp.EmulateViewport(360, 800))
	w, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.scrollingElement.scrollWidth`))
	if err != nil {
		t.Fatal(err)
	}
	if w > 360 {
		t.Errorf("%s at 360 px: %d px wide, scrolls sideways", what, w)
	}
	b.do(t, "a desk screen", chromedp.EmulateViewport(1280, 900))
}

// waitPolicyError loads the policy page until it shows the refused
// reload: the Reloader looks at the file every 100 ms.
func (b *browser) waitPolicyError(t *testing.T, console string) {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(setupWait)
	for {
		b.do(t, "policy page", chromedp.Navigate(console+"/policy"), chromedp.WaitVisible(chromedp.CSS("pre.yaml")))
		shown, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.getElementById("reload-error") !== null`))
		if err != nil {
			t.Fatal(err)
		}
		if shown {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("the policy page never showed the refused reload")
		}
	}
}
