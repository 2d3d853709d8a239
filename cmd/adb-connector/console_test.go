package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb"
)

// TestConsoleFlags: the console is off by default, listens on loopback
// unless --console-allow-remote, and needs a token of its own.
func TestConsoleFlags(t *testing.T) {
	tok := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(tok, []byte("file-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const good = "env-token-0123456789abcdef"
	tests := []struct {
		name, env, apiKey string
		args              []string
		wantErr           string // "" no error
		wantToken         string
	}{
		{name: "off by default"},
		{name: "loopback, env token", env: good, args: []string{"--console-listen", "127.0.0.1:8081"}, wantToken: good},
		{name: "localhost, file token", args: []string{"--console-listen", "localhost:8081", "--console-token-file", tok}, wantToken: "file-token-0123456789abcdef"},
		{name: "ipv6 loopback", env: good, args: []string{"--console-listen", "[::1]:8081"}, wantToken: good},
		{name: "remote refused", env: good, args: []string{"--console-listen", "10.0.0.5:8081"}, wantErr: "--console-allow-remote"},
		{name: "every interface refused", env: good, args: []string{"--console-listen", ":8081"}, wantErr: "not a loopback address"},
		{name: "remote allowed", env: good, args: []string{"--console-listen", "0.0.0.0:8081", "--console-allow-remote"}, wantToken: good},
		{name: "no token", args: []string{"--console-listen", "127.0.0.1:8081"}, wantErr: "needs an operator token"},
		{name: "short token", env: "short", args: []string{"--console-listen", "127.0.0.1:8081"}, wantErr: "at least 16 characters"},
		{name: "token is the API key", env: good, apiKey: good, args: []string{"--console-listen", "127.0.0.1:8081"}, wantErr: "must not be the xAgent API key"},
		{name: "file and env", env: good, args: []string{"--console-listen", "127.0.0.1:8081", "--console-token-file", tok}, wantErr: "not both"},
		{name: "bad address", env: good, args: []string{"--console-listen", "nonsense"}, wantErr: "want HOST:PORT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(consoleTokenEnv, tt.env)
			t.Setenv("ADB_CONNECTOR_API_KEY", tt.apiKey)
			t.Setenv("ADB_CONNECTOR_CONSOLE_LISTEN", "")
			t.Setenv("ADB_CONNECTOR_CONSOLE_TOKEN_FILE", "")
			cfg, err := parseServeFlags(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				if tt.env != "" && strings.Contains(err.Error(), tt.env) {
					t.Fatalf("the error shows the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Console.Token != tt.wantToken {
				t.Fatalf("token %q, want %q", cfg.Console.Token, tt.wantToken)
			}
		})
	}
}

// consoleClient is an HTTP client of the console that follows no
// redirect, so each answer is seen as it is.
func consoleClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func send(t *testing.T, c *http.Client, method, u string, form url.Values, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`)

// TestConsoleRefusals: over plain HTTP, what the console refuses is
// refused and nothing is done: no session, a wrong token, a token in the
// URL, a missing or forged CSRF token, a cross-site form; the session
// cookie is HttpOnly and SameSite=Strict, every answer carries the
// security headers, and neither the token nor a pairing code reaches the
// log.
func TestConsoleRefusals(t *testing.T) {
	t.Parallel()
	cs := startConsoleServe(t)
	c, serial := cs.console, cs.env.Devices[0].Serial()
	key := adb.DeviceKey(cs.env.ServerAddr, serial)
	a := newAgent(t, cs.serveProc, "")
	ch := a.open(t)
	code, _ := a.pair(t, cs.serveProc, ch, serial)
	hc := consoleClient(t)
	unbind := url.Values{"d": {key}}

	for _, path := range []string{"/", "/device?d=" + url.QueryEscape(key), "/audit", "/policy"} {
		resp, _ := send(t, hc, "GET", c+path, nil, nil)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
			t.Errorf("GET %s without a session: %d to %q, want 303 to /login", path, resp.StatusCode, resp.Header.Get("Location"))
		}
		for h, want := range map[string]string{"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"} {
			if got := resp.Header.Get(h); got != want {
				t.Errorf("GET %s: %s %q, want %q", path, h, got, want)
			}
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
	}
	for _, path := range []string{"/thumb?d=" + url.QueryEscape(key), "/audit/tail?after=0"} {
		if resp, _ := send(t, hc, "GET", c+path, nil, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a session: %d, want 401", path, resp.StatusCode)
		}
	}
	if resp, _ := send(t, hc, "POST", c+"/device/unbind", unbind, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("unbind without a session: %d, want 403", resp.StatusCode)
	}
	if resp, _ := send(t, hc, "POST", c+"/login", url.Values{"token": {"wrong-token-0123456789"}}, nil); resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
		t.Errorf("wrong token: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	if resp, _ := send(t, hc, "GET", c+"/login?token="+consoleToken, nil, nil); len(resp.Cookies()) != 0 {
		t.Errorf("a token in the URL started a session")
	}

	resp, _ := send(t, hc, "POST", c+"/login", url.Values{"token": {consoleToken}}, nil)
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("login: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	ck := resp.Cookies()[0]
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" || strings.Contains(ck.Value, consoleToken) {
		t.Errorf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/, no token", ck)
	}
	_, page := send(t, hc, "GET", c+"/device?d="+url.QueryEscape(key), nil, nil)
	if !strings.Contains(page, "Phone helper") || !strings.Contains(page, "started on first use") {
		t.Errorf("the device page does not say the phone helper's state:\n%s", page)
	}
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("device page has no CSRF field:\n%s", page)
	}
	csrf := m[1]
	for _, tc := range []struct {
		name string
		form url.Values
		hdr  map[string]string
	}{
		{"no CSRF token", url.Values{"d": {key}}, nil},
		{"forged CSRF token", url.Values{"d": {key}, "csrf": {strings.Repeat("0", 64)}}, nil},
		{"cross-site", url.Values{"d": {key}, "csrf": {csrf}}, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"other origin", url.Values{"d": {key}, "csrf": {csrf}}, map[string]string{"Origin": "http://evil.example"}},
	} {
		if resp, _ := send(t, hc, "POST", c+"/device/unbind", tc.form, tc.hdr); resp.StatusCode != http.StatusForbidden {
			t.Errorf("unbind, %s: %d, want 403", tc.name, resp.StatusCode)
		}
	}
	if !cs.deviceRow(t, serial).Bound {
		t.Fatal("a refused unbind unbound the phone")
	}
	// The same form with the session's token does it.
	if resp, _ := send(t, hc, "POST", c+"/device/unbind", url.Values{"d": {key}, "csrf": {csrf}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("unbind: %d", resp.StatusCode)
	}
	if cs.deviceRow(t, serial).Bound {
		t.Fatal("still bound after the console's unbind")
	}
	// Logging out ends the session: its cookie no longer works.
	if resp, _ := send(t, hc, "POST", c+"/logout", url.Values{"csrf": {csrf}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	hc.Jar.SetCookies(&url.URL{Scheme: "http", Host: strings.TrimPrefix(c, "http://")}, []*http.Cookie{ck})
	if resp, _ := send(t, hc, "GET", c+"/", nil, nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the session outlived logout: %d", resp.StatusCode)
	}
	logs := cs.Logs()
	for _, s := range []string{consoleToken, code, ck.Value} {
		if strings.Contains(logs, s) {
			t.Errorf("the log holds a secret (%d chars)", len(s))
		}
	}
}
