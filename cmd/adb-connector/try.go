package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagentclient"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/card"
	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/internal/suggest"
)

// `try` is a first agent call with what ships: it is the xAgent side of
// the protocol (the /ws data plane with the API key, hello, a channel, the
// device_request flow) and the operator side of the binding (approve on
// the admin socket) in one command, so a newcomer sees a tool work right
// after `make run`, and an operator can check a phone the way an agent
// reaches it.

func init() {
	register("try", "call one tool as an agent would: bind a free phone, call, save files, release", runTry)
}

// trySession is what `try --keep` leaves behind for the next `try`: the
// lease and channel that hold the phone (the server keeps both for
// --lease-grace with no connection, so the binding outlives the process).
type trySession struct {
	URL         string `json:"url"`
	ConnectorID string `json:"connector_id"`
	ChannelID   string `json:"connector_channel_id"`
	Serial      string `json:"serial"`
}

// trySettle bounds how long try waits for a bound phone to answer
// (a serve that started a moment ago may not have heard it yet).
const trySettle = 15 * time.Second

func runTry(args []string, stdout, stderr io.Writer) error {
	fs, dataDir := newAdminFlags("try", stdout,
		"try [--serial SERIAL] [--keep] [--release] [--server URL] [--out DIR] [--data-dir DIR] TOOL [ARGS-JSON]",
		"Calls one tool as an xAgent agent would: connects to the running server's /ws with the API key",
		"(ADB_CONNECTOR_API_KEY or --api-key-file), binds a free phone through the device_request flow and",
		"approves it on the admin socket, calls TOOL with ARGS-JSON (an object; default {}), saves every",
		"file the result names (file_ref) to --out, prints the result as JSON, then logs out (the phone is free).",
		"--keep leaves the phone bound to this command's channel after the call; the next `try` reuses it",
		"(no new approval, same phone) until a `try` without --keep ends, `try --release`, or serve's --lease-grace",
		"(1h) passes with no try connected. The kept channel is remembered in ~/.cache/adb-connector/ (XDG_CACHE_HOME).",
		"",
		"example: adb-connector try android_observe '{\"max_side\":1024}'")
	serial := fs.String("serial", "", "bind this `SERIAL` (or ENDPOINT/SERIAL); default: any free online phone")
	keep := fs.Bool("keep", false, "keep the phone bound after the call, for the next try")
	release := fs.Bool("release", false, "release a phone kept by an earlier try --keep, and call nothing")
	server := fs.String("server", "", "the server's base `URL` (default http:// + $ADB_CONNECTOR_LISTEN, else http://127.0.0.1:8080)")
	keyFile := fs.String("api-key-file", envOr("ADB_CONNECTOR_API_KEY_FILE", ""), "`FILE` holding the API key (env ADB_CONNECTOR_API_KEY_FILE; or the key itself in ADB_CONNECTOR_API_KEY)")
	outDir := fs.String("out", ".", "`DIR` to save returned files in")
	pos, err := parseArgs(fs, args, stderr)
	if err != nil {
		return err
	}
	if *release {
		if len(pos) > 0 {
			return usageError(fs, stderr, "try --release takes no TOOL")
		}
	} else if len(pos) == 0 {
		return usageError(fs, stderr, "missing TOOL (e.g. android_observe)")
	} else if len(pos) > 2 {
		return usageError(fs, stderr, fmt.Sprintf("unexpected argument %q after ARGS-JSON (quote the JSON object as one argument)", pos[2]))
	}
	toolArgs := map[string]any{}
	if len(pos) == 2 {
		if err := json.Unmarshal([]byte(pos[1]), &toolArgs); err != nil || toolArgs == nil {
			return fmt.Errorf("ARGS-JSON %q is not a JSON object, e.g. '{\"max_side\":1024}'", pos[1])
		}
	}
	key, err := loadAPIKey(*keyFile, os.Getenv("ADB_CONNECTOR_API_KEY"))
	if err != nil {
		return err
	}
	base := *server
	if base == "" {
		base = "http://" + envOr("ADB_CONNECTOR_LISTEN", "127.0.0.1:8080")
	}
	base = strings.TrimSuffix(base, "/")
	dir := resolveDataDir(*dataDir, stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t := &tryRun{base: base, key: key, dataDir: dir, stderr: stderr, sessionPath: trySessionPath(base)}
	if *release {
		return t.releaseKept(ctx)
	}
	if tool, known := pos[0], tools.IDs(tools.FullSet()); !slices.Contains(known, tool) {
		hint := ""
		if c := suggest.Closest(tool, known); c != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", c)
		}
		return usageError(fs, stderr, fmt.Sprintf("unknown tool %q%s; the tools: %s", tool, hint, strings.Join(known, ", ")))
	}
	return t.call(ctx, *serial, *keep, pos[0], toolArgs, *outDir, stdout)
}

// tryRun is one `try`: the server, its key and admin socket, and where a
// kept session is remembered.
type tryRun struct {
	base, key, dataDir, sessionPath string
	stderr                          io.Writer
	c                               *xagentclient.Client
}

// trySessionPath is where `try --keep` remembers its channel: in the
// user's cache directory, one file per server.
func trySessionPath(base string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	name := strings.NewReplacer("://", "-", ":", "-", "/", "-").Replace(base)
	return filepath.Join(dir, "adb-connector", "try-"+name+".json")
}

func (t *tryRun) loadSession() *trySession {
	b, err := os.ReadFile(t.sessionPath)
	if err != nil {
		return nil
	}
	var s trySession
	if json.Unmarshal(b, &s) != nil || s.URL != t.base || s.ChannelID == "" {
		return nil
	}
	return &s
}

func (t *tryRun) saveSession(s trySession) error {
	if err := os.MkdirAll(filepath.Dir(t.sessionPath), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(s)
	return os.WriteFile(t.sessionPath, b, 0o600)
}

// connect dials /ws with the key and says hello with connectorID ("" for
// a new lease); it returns the lease's id.
func (t *tryRun) connect(ctx context.Context, connectorID string) (string, error) {
	c, resp, err := xagentclient.Dial(ctx, t.base, xagentclient.Options{APIKey: t.key})
	if err != nil {
		if resp != nil && resp.StatusCode == 401 {
			return "", fmt.Errorf("the server refused the API key: set ADB_CONNECTOR_API_KEY or --api-key-file to the key serve uses")
		}
		return "", fmt.Errorf("cannot reach %s/ws: %w (is `adb-connector serve` running there? --server sets the URL)", t.base, err)
	}
	t.c = c
	id, err := c.Hello(ctx, card.CardID, connectorID)
	if err != nil {
		return "", fmt.Errorf("hello: %w", err)
	}
	return id, nil
}

// call binds (or reuses a kept binding), calls tool, saves its files and
// prints its result, then logs out unless keep.
func (t *tryRun) call(ctx context.Context, serial string, keep bool, tool string, args map[string]any, outDir string, stdout io.Writer) (err error) {
	kept := t.loadSession()
	prevID := ""
	if kept != nil {
		prevID = kept.ConnectorID
	}
	connID, err := t.connect(ctx, prevID)
	if err != nil {
		return err
	}
	defer t.c.Close()
	ch, bound := "", ""
	if kept != nil && connID == kept.ConnectorID && (serial == "" || serial == kept.Serial) {
		if ch, err = t.restore(ctx, kept.ChannelID); err == nil && ch != "" {
			bound = kept.Serial
			fmt.Fprintf(t.stderr, "using the phone kept by an earlier try --keep: %s\n", bound)
		}
	} else if kept != nil && connID == kept.ConnectorID {
		// Another phone asked for: free the kept one first.
		if old, err := t.restore(ctx, kept.ChannelID); err == nil && old != "" {
			t.logout(old)
		}
	}
	if ch == "" {
		if ch, _, err = t.c.OpenChannel(ctx, ""); err != nil {
			return err
		}
		if bound, err = t.bind(ctx, ch, serial); err != nil {
			t.logout(ch)
			return err
		}
		fmt.Fprintf(t.stderr, "bound %s to a new channel (device_request flow, approved on %s)\n", bound, admin.SocketPath(t.dataDir))
	}
	defer func() {
		if keep {
			if serr := t.saveSession(trySession{URL: t.base, ConnectorID: connID, ChannelID: ch, Serial: bound}); serr != nil {
				err = errors.Join(err, serr)
				return
			}
			fmt.Fprintf(t.stderr, "kept %s bound for the next try (release it: adb-connector try --release)\n", bound)
			return
		}
		t.logout(ch)
		os.Remove(t.sessionPath)
		fmt.Fprintf(t.stderr, "logged out: %s is free again\n", bound)
	}()
	return t.invoke(ctx, ch, tool, args, outDir, stdout)
}

// restore reopens a kept channel; it returns "" when its phone is no
// longer bound to it (unbound by the operator, lease gone).
func (t *tryRun) restore(ctx context.Context, id string) (string, error) {
	ch, ack, err := t.c.OpenChannel(ctx, id)
	if err != nil {
		return "", err
	}
	var pl struct {
		Descriptor connector.Descriptor `json:"connection_descriptor"`
	}
	if json.Unmarshal(ack.Payload, &pl) != nil || ch != id {
		return "", nil
	}
	switch pl.Descriptor.Connection.Status {
	case "connected", "offline", "degraded":
		return ch, nil
	}
	return "", nil
}

// bind runs the device_request flow on ch and approves its code on the
// admin socket, as an operator would, then waits until the phone answers.
// It returns the bound serial.
func (t *tryRun) bind(ctx context.Context, ch, serial string) (string, error) {
	start, err := t.c.Request(ctx, connector.TypeAuthStart, ch, map[string]any{"flow_id": auth.FlowRequest})
	if err != nil {
		return "", err
	}
	var ack struct {
		Status    string                `json:"status"`
		SessionID string                `json:"auth_session_id"`
		Code      string                `json:"qr_code_text"`
		Message   string                `json:"message"`
		Desc      *connector.Descriptor `json:"connection_descriptor"`
	}
	if start.Error != nil || json.Unmarshal(start.Payload, &ack) != nil || ack.Code == "" {
		return "", fmt.Errorf("auth.start device_request: %s %s", start.Payload, packetError(start))
	}
	var key string
	err = withAdmin(t.dataDir, t.stderr, func(actx context.Context, c *admin.Client) error {
		key, err = c.Approve(actx, ack.Code, serial)
		return operatorError(actx, c, serial, err)
	})
	if err != nil {
		return "", err
	}
	_, bound := binding.SplitKey(key)
	deadline := time.Now().Add(trySettle)
	for {
		st, err := t.c.Request(ctx, connector.TypeAuthStatus, ch, map[string]any{"flow_id": auth.FlowRequest, "auth_session_id": ack.SessionID})
		if err != nil {
			return "", err
		}
		ack.Desc = nil
		if st.Error != nil || json.Unmarshal(st.Payload, &ack) != nil {
			return "", fmt.Errorf("auth.status: %s", packetError(st))
		}
		if ack.Status == "authenticated" && ack.Desc != nil && ack.Desc.Connection.Status == "connected" {
			return bound, nil
		}
		if ack.Status != "pending" && ack.Status != "authenticated" {
			return "", fmt.Errorf("auth.status: %s: %s", ack.Status, ack.Message)
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%s is bound but did not answer within %s (see adb-connector devices and adb-connector doctor)", bound, trySettle)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func packetError(p *connector.Packet) string {
	if p.Error == nil {
		return p.Type
	}
	return p.Error.Code + ": " + p.Error.Message
}

// invoke calls tool on ch, saves the files its result names and prints
// the result.
func (t *tryRun) invoke(ctx context.Context, ch, tool string, args map[string]any, outDir string, stdout io.Writer) error {
	args["connector_channel_id"] = ch
	id := make([]byte, 8)
	rand.Read(id)
	p, err := t.c.Request(ctx, connector.TypeToolInvoke, ch, map[string]any{
		"tool_id": tool, "arguments": args,
		"context": map[string]string{"session_id": "adb-connector-try", "tool_call_id": "try_" + hex.EncodeToString(id)}})
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if p.Error != nil {
		return fmt.Errorf("%s failed: %s: %s", tool, p.Error.Code, p.Error.Message)
	}
	var pl struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(p.Payload, &pl); err != nil {
		return fmt.Errorf("%s: undecodable ack: %w", tool, err)
	}
	var res any
	if err := json.Unmarshal(pl.Result, &res); err != nil {
		return fmt.Errorf("%s: undecodable result: %w", tool, err)
	}
	for _, f := range fileRefs(res) {
		path, n, err := downloadFile(ctx, t.base, ch, f, outDir)
		if err != nil {
			return err
		}
		fmt.Fprintf(t.stderr, "saved %s (%d bytes, %s)\n", path, n, f.MimeType)
	}
	out, _ := json.MarshalIndent(res, "", "  ")
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// logout frees ch's phone; on a fresh context, so an interrupted try
// still releases what it bound.
func (t *tryRun) logout(ch string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := t.c.Request(ctx, connector.TypeAuthLogout, ch, map[string]any{})
	if err != nil || p.Error != nil {
		fmt.Fprintf(t.stderr, "logout failed (`adb-connector unbind` frees the phone): %v %s\n", err, packetError(p))
	}
}

// releaseKept logs out the channel a `try --keep` left bound.
func (t *tryRun) releaseKept(ctx context.Context) error {
	kept := t.loadSession()
	if kept == nil {
		_, err := fmt.Fprintln(t.stderr, "no phone is kept by try --keep for", t.base)
		return err
	}
	defer os.Remove(t.sessionPath)
	connID, err := t.connect(ctx, kept.ConnectorID)
	if err != nil {
		return err
	}
	defer t.c.Close()
	if connID != kept.ConnectorID {
		fmt.Fprintln(t.stderr, "the kept lease had already ended: nothing to release")
		return nil
	}
	if ch, err := t.restore(ctx, kept.ChannelID); err == nil && ch != "" {
		t.logout(ch)
	}
	fmt.Fprintf(t.stderr, "logged out: %s is free again\n", kept.Serial)
	return nil
}
