package connector_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
)

var channelIDRe = regexp.MustCompile(`^cch_[0-9a-f]{32}$`)

func TestChannelLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{key: apiKey})
	ctx := ctxT(t)
	c, connID := e.helloed(t, apiKey, "")
	ch, ack, err := c.OpenChannel(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !channelIDRe.MatchString(ch) {
		t.Errorf("channel id %q is not cch_ + 128-bit hex", ch)
	}
	p := payloadOf(t, ack)
	d := p["connection_descriptor"].(map[string]any)
	conn := d["connection"].(map[string]any)
	if p["connector_channel_id"] != ch || conn["connector_channel_id"] != ch || conn["connector_id"] != connID || conn["status"] != "created" {
		t.Errorf("channel.open.ack payload = %v", p)
	}

	r, err := c.Request(ctx, connector.TypeDescriptorGet, ch, nil)
	if err != nil || r.Type != connector.TypeDescriptorGetAck || r.ChannelID != ch {
		t.Fatalf("descriptor.get: %+v %v", r, err)
	}
	r, _ = c.Request(ctx, connector.TypeChannelClose, ch, nil)
	if r.Type != connector.TypeChannelCloseAck || payloadOf(t, r)["status"] != "ok" {
		t.Fatalf("channel.close: %+v", r)
	}
	r, _ = c.Request(ctx, connector.TypeDescriptorGet, ch, nil)
	wantError(t, r, connector.TypeError, connector.CodeChannelNotOpen)
	// Closing again is a no-op ack.
	r, _ = c.Request(ctx, connector.TypeChannelClose, ch, nil)
	if r.Type != connector.TypeChannelCloseAck {
		t.Fatalf("second channel.close: %+v", r)
	}
	// Restore on the same socket gives the same channel back.
	again, _, err := c.OpenChannel(ctx, ch)
	if err != nil || again != ch {
		t.Fatalf("restore = %q %v, want %q", again, err, ch)
	}
	// Unknown restore id: a new channel.
	other, _, err := c.OpenChannel(ctx, "cch_00000000000000000000000000000000")
	if err != nil || other == ch || !channelIDRe.MatchString(other) {
		t.Fatalf("open with unknown id = %q %v", other, err)
	}
}

func TestChannelRoutingErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := ctxT(t)
	a, aID, chA := e.openChannel(t)
	b, bID := e.helloed(t, "", "") // another runtime instance
	if aID == bID {
		t.Fatal("two empty hellos got the same connector_id")
	}
	a2, _ := e.helloed(t, "", aID) // second socket of the same connector_id

	cases := []struct {
		name string
		c    *xagenttest.Client
		typ  string
		ch   string
		code string
	}{
		{"missing channel id", a, connector.TypeDescriptorGet, "", connector.CodeChannelIDRequired},
		{"missing channel id tool", a, connector.TypeToolInvoke, "", connector.CodeChannelIDRequired},
		{"missing channel id auth", a, connector.TypeAuthStart, "", connector.CodeChannelIDRequired},
		{"missing channel id close", a, connector.TypeChannelClose, "", connector.CodeChannelIDRequired},
		{"unknown channel", a, connector.TypeDescriptorGet, "cch_ffffffffffffffffffffffffffffffff", connector.CodeConnectionNotFound},
		{"other connector_id", b, connector.TypeDescriptorGet, chA, connector.CodeChannelConnectorMismatch},
		{"other connector_id tool", b, connector.TypeToolInvoke, chA, connector.CodeChannelConnectorMismatch},
		{"other connector_id restore", b, connector.TypeChannelOpen, chA, connector.CodeChannelConnectorMismatch},
		{"not open on this socket", a2, connector.TypeDescriptorGet, chA, connector.CodeChannelNotOpen},
		{"not open on this socket tool", a2, connector.TypeToolInvoke, chA, connector.CodeChannelNotOpen},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.c.Request(ctx, tc.typ, tc.ch, map[string]any{"tool_id": "echo"})
			if err != nil {
				t.Fatal(err)
			}
			wantError(t, r, connector.TypeError, tc.code)
			if r.RequestID == "" || r.ReplyTo == "" {
				t.Errorf("error without request_id/reply_to: %+v", r)
			}
		})
	}
	// The second socket of the same connector_id may take the channel over.
	if got, _, err := a2.OpenChannel(ctx, chA); err != nil || got != chA {
		t.Fatalf("take over = %q %v", got, err)
	}
	r, _ := a.Request(ctx, connector.TypeDescriptorGet, chA, nil)
	wantError(t, r, connector.TypeError, connector.CodeChannelNotOpen)
}

func TestReconnectRestore(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{profile: true})
	ctx := ctxT(t)
	c1, id, ch := e.openChannel(t)
	c1.Close()
	waitFor(t, func() bool { _, pending := e.srv.LeasePending(id); return pending })

	c2, id2 := e.helloed(t, "", id)
	if id2 != id {
		t.Fatalf("reconnect got connector_id %q, want %q", id2, id)
	}
	if known, pending := e.srv.LeasePending(id); !known || pending {
		t.Errorf("lease after reconnect: known=%v pending=%v", known, pending)
	}
	got, _, err := c2.OpenChannel(ctx, ch)
	if err != nil || got != ch {
		t.Fatalf("restore = %q %v, want %q", got, err, ch)
	}
	// An unknown connector_id gets a new one.
	_, id3 := e.helloed(t, "", "conn_device_adb_unknown")
	if id3 == "conn_device_adb_unknown" || id3 == id {
		t.Errorf("unknown connector_id honoured: %q", id3)
	}
}

func TestLeaseExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{profile: true, grace: 50 * time.Millisecond})
	ctx := ctxT(t)
	c, id, ch := e.openChannel(t)
	c.Close()
	select {
	case rel := <-e.prof.released:
		if len(rel) != 1 || rel[0].ID != ch || rel[0].ConnectorID != id {
			t.Errorf("released %+v, want channel %s", rel, ch)
		}
	case <-ctx.Done():
		t.Fatal("lease did not expire")
	}
	var n int
	e.db.Read.QueryRow(`SELECT count(*) FROM channels WHERE connector_id = ?`, id).Scan(&n)
	if n != 0 {
		t.Errorf("%d channel rows left after expiry", n)
	}
	c2, id2 := e.helloed(t, "", id)
	if id2 == id {
		t.Error("expired connector_id was honoured")
	}
	r, _ := c2.Request(ctx, connector.TypeDescriptorGet, ch, nil)
	wantError(t, r, connector.TypeError, connector.CodeConnectionNotFound)
}

// firstLife runs a server on dir with one client that opens one channel,
// then stops it; it returns the connector_id and the channel id.
func firstLife(t *testing.T, dir string) (connectorID, ch string) {
	t.Helper()
	e := newEnv(t, envOpts{dir: dir})
	c, connectorID, ch := e.openChannel(t)
	e.stop(c)
	return connectorID, ch
}

func TestRestoredChannelsExpireWithoutHello(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, ch := firstLife(t, dir)
	// Restart: state is back, and with no hello the lease releases it.
	e := newEnv(t, envOpts{dir: dir, profile: true, grace: 50 * time.Millisecond})
	select {
	case rel := <-e.prof.released:
		if len(rel) != 1 || rel[0].ID != ch || rel[0].ConnectorID != id {
			t.Errorf("released %+v", rel)
		}
	case <-ctxT(t).Done():
		t.Fatal("restored channel was never released")
	}
}

func TestRestartRestoresState(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, ch := firstLife(t, dir)
	e := newEnv(t, envOpts{dir: dir})
	c, id2 := e.helloed(t, "", id)
	if id2 != id {
		t.Fatalf("after restart connector_id %q, want %q", id2, id)
	}
	if got, _, err := c.OpenChannel(ctxT(t), ch); err != nil || got != ch {
		t.Fatalf("restore after restart = %q %v", got, err)
	}
}

func TestPushDescriptorAndAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{profile: true})
	ctx := ctxT(t)
	c, _, ch := e.openChannel(t)
	r, _ := c.Request(ctx, connector.TypeAuthStart, ch, map[string]any{"flow_id": "device_pairing", "input": map[string]any{"pairing_code": "000000"}})
	if r.Type != connector.TypeAuthStartAck || payloadOf(t, r)["status"] != "pending" || payloadOf(t, r)["connector_channel_id"] != ch {
		t.Fatalf("auth.start pending: %+v", r)
	}
	r, _ = c.Request(ctx, connector.TypeAuthStart, ch, map[string]any{"flow_id": "device_pairing", "input": map[string]any{"pairing_code": "123456"}})
	p := payloadOf(t, r)
	if p["status"] != "authenticated" || p["connection_descriptor"].(map[string]any)["connection"].(map[string]any)["status"] != "connected" {
		t.Fatalf("auth.start authenticated: %v", p)
	}
	r, _ = c.Request(ctx, connector.TypeAuthStatus, ch, map[string]any{"auth_session_id": "nope"})
	wantError(t, r, connector.TypeAuthStatusAck, connector.CodeAuthSessionNotFound)
	r, _ = c.Request(ctx, connector.TypeAuthCancel, ch, map[string]any{"auth_session_id": "auth_1"})
	if r.Type != connector.TypeAuthCancelAck || payloadOf(t, r)["status"] != "canceled" {
		t.Fatalf("auth.cancel: %+v", r)
	}

	e.prof.setStatus(ch, connector.StatusOffline)
	if err := e.srv.PushDescriptor(ctx, ch); err != nil {
		t.Fatal(err)
	}
	push, err := c.WaitPush(ctx, connector.TypeDescriptorPush)
	if err != nil {
		t.Fatal(err)
	}
	if push.ChannelID != ch || payloadOf(t, push)["connection_descriptor"].(map[string]any)["connection"].(map[string]any)["status"] != "offline" {
		t.Errorf("push = %s", push.Payload)
	}
	if err := e.srv.PushDescriptor(ctx, "cch_unknown"); err != connector.ErrChannelNotFound {
		t.Errorf("PushDescriptor(unknown) = %v", err)
	}

	r, _ = c.Request(ctx, connector.TypeAuthLogout, ch, nil)
	p = payloadOf(t, r)
	if r.Type != connector.TypeAuthLogoutAck || p["status"] != "ok" || p["connection_descriptor"].(map[string]any)["connection"].(map[string]any)["status"] != "created" {
		t.Fatalf("auth.logout: %v", p)
	}
}

func TestAuthWithoutProfile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := ctxT(t)
	c, _, ch := e.openChannel(t)
	for _, typ := range []string{connector.TypeAuthStart, connector.TypeAuthStatus, connector.TypeAuthCancel, connector.TypeAuthLogout} {
		r, _ := c.Request(ctx, typ, ch, map[string]any{})
		wantError(t, r, typ+".ack", connector.CodeAuthNotSupported)
	}
}

// waitFor polls cond until it holds or 10 s pass (a deadline, not a sleep-as-sync).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRestoreAdoptsChannelOfIdleConnectorID: after xAgent got a new
// connector_id, it can still restore its channels while the old id has no
// data plane (connector_card_id is the channel namespace, architecture §3.5).
func TestRestoreAdoptsChannelOfIdleConnectorID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := ctxT(t)
	a, aID, ch := e.openChannel(t)
	a.Close()
	waitFor(t, func() bool { _, pending := e.srv.LeasePending(aID); return pending })
	b, bID := e.helloed(t, "", "")
	got, ack, err := b.OpenChannel(ctx, ch)
	if err != nil || got != ch {
		t.Fatalf("restore under new connector_id = %q %v", got, err)
	}
	conn := payloadOf(t, ack)["connection_descriptor"].(map[string]any)["connection"].(map[string]any)
	if conn["connector_id"] != bID {
		t.Errorf("descriptor connector_id = %v, want %s", conn["connector_id"], bID)
	}
	// The hand-over is final while the new owner is live: the old
	// connector_id coming back is refused the channel.
	old, _ := e.helloed(t, "", aID)
	r, err := old.Request(ctx, connector.TypeChannelOpen, ch, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, r, connector.TypeError, connector.CodeChannelConnectorMismatch)
}

// TestChannelLink: ChannelLink says whether a channel is open on a live
// connection and since when, for the operator's "is the holder still
// there": open while the socket holds it, closed once the socket goes.
func TestChannelLink(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	before := time.Now()
	c, _, ch := e.openChannel(t)
	open, since, ok := e.srv.ChannelLink(ch)
	if !ok || !open || since.Before(before) {
		t.Fatalf("ChannelLink of an open channel = %v %v %v", open, since, ok)
	}
	closedAt := time.Now()
	c.Close()
	// The server sees the close on its reader: poll for it.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for open {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("the channel still reads open 10 s after its socket closed")
		}
		open, since, ok = e.srv.ChannelLink(ch)
	}
	if !ok || open || since.Before(closedAt) {
		t.Errorf("ChannelLink after the socket closed = %v %v %v, want closed since then", open, since, ok)
	}
	if _, _, ok := e.srv.ChannelLink("cch_00000000000000000000000000000000"); ok {
		t.Error("ChannelLink of an unknown channel: ok")
	}
}
