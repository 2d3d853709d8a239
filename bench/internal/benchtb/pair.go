package benchtb

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/tools"
)

// retryAfterRe reads the wait out of a rate_limited pairing refusal.
var retryAfterRe = regexp.MustCompile(`retry after (\d+) s`)

// Pair asks the running server's admin socket for a one-time code for
// serial, as the operator's `adb-connector pair` does, and redeems it with
// auth.start device_pairing on channel ch of c; it returns the ack. Pairing
// attempts are rate-limited per serial (a handful a minute) and a long run
// may rebind more often than that: a rate_limited refusal waits out its
// retry hint and tries again, up to five times.
func (s *Serve) Pair(ctx context.Context, c *xagenttest.Client, ch, serial string) (*connector.Packet, error) {
	for attempt := 0; ; attempt++ {
		ac, err := admin.Dial(ctx, admin.SocketPath(s.DataDir))
		if err != nil {
			return nil, err
		}
		code, err := ac.Pair(ctx, serial, 0)
		ac.Close()
		if err != nil {
			return nil, err
		}
		r, err := c.Request(ctx, connector.TypeAuthStart, ch, map[string]any{
			"flow_id": auth.FlowPairing, "input": map[string]string{"serial": serial, "pairing_code": code}})
		if err != nil || r.Error == nil || r.Error.Code != tools.CodeRateLimited || attempt >= 5 {
			return r, err
		}
		wait := 5 * time.Second
		if m := retryAfterRe.FindStringSubmatch(r.Error.Message); m != nil {
			if sec, err := strconv.Atoi(m[1]); err == nil {
				wait = time.Duration(sec)*time.Second + 100*time.Millisecond
			}
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Devices lists what the running server's adb servers see, through its
// admin socket (`adb-connector devices`).
func (s *Serve) Devices(ctx context.Context) ([]admin.DeviceRow, error) {
	ac, err := admin.Dial(ctx, admin.SocketPath(s.DataDir))
	if err != nil {
		return nil, err
	}
	defer ac.Close()
	return ac.Devices(ctx)
}

// PairConnected pairs channel ch of c with serial (Pair) and waits for
// its Descriptor to say "connected" (the server may still be probing the
// phone): the pairing every benchmark agent starts with. Other pushes on
// c meanwhile are consumed, so binds on one socket go one after another.
func (s *Serve) PairConnected(ctx context.Context, c *xagenttest.Client, ch, serial string) error {
	r, err := s.Pair(ctx, c, ch, serial)
	if err != nil {
		return err
	}
	var ack struct {
		Status string `json:"status"`
		D      struct {
			Connection struct {
				Status string `json:"status"`
			} `json:"connection"`
		} `json:"connection_descriptor"`
	}
	if r.Error != nil || json.Unmarshal(r.Payload, &ack) != nil || ack.Status != "authenticated" {
		return fmt.Errorf("pairing refused: %s %v", r.Payload, r.Error)
	}
	for st := ack.D.Connection.Status; st != "connected"; {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		p, err := c.WaitPush(wctx, connector.TypeDescriptorPush)
		cancel()
		if err != nil {
			return fmt.Errorf("waiting for connected (last %q): %w", st, err)
		}
		if p.ChannelID == ch && json.Unmarshal(p.Payload, &ack) == nil {
			st = ack.D.Connection.Status
		}
	}
	return nil
}
