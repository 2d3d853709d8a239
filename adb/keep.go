package adb

import (
	"context"
	"fmt"
	"net"
	"slices"
	"time"
)

// A restarted adb server knows no network device: `adb connect` state
// lives in the server process only (AOSP SERVICES.TXT, host:connect). The
// keep list is what the Client connects again on its own.

// keptDevice is the re-attach state of one kept network device.
type keptDevice struct {
	backoff time.Duration // wait after the last attempt; 0 while listed
	next    time.Time     // no attempt before
	warned  bool          // a failed attempt was logged at Warn this outage
}

// KeepConnected asks the adb server at endpoint, one of the Client's, to
// connect to the network device addr ("host:port", port 5555 by default,
// as `adb connect`) and keeps it connected: whenever tracking finds that
// server's list without addr (after the server restarted, or someone ran
// `adb disconnect`), the Client connects it again, with tracking's backoff
// (50 ms doubling to 1 s) and an Info record once it did. Disconnect ends
// the keeping. On error nothing is kept. Without tracking
// (Config.NoTracking) it is Connect. Default timeout: 10 s. Safe for
// concurrent use.
func (c *Client) KeepConnected(ctx context.Context, endpoint, addr string) error {
	ep, addr, err := c.keepKey(endpoint, addr)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if c.keep[ep] == nil {
		c.keep[ep] = map[string]*keptDevice{}
	}
	c.keep[ep][addr] = &keptDevice{}
	c.mu.Unlock()
	if err := c.Connect(ctx, ep, addr); err != nil {
		c.unkeep(ep, addr)
		return err
	}
	return nil
}

// keepKey normalizes endpoint and addr as tracking and the adb server's
// list name them: the endpoint "host:port", addr the serial a network
// device is listed under.
func (c *Client) keepKey(endpoint, addr string) (ep, serial string, err error) {
	ep, err = normalizeEndpoint(endpoint)
	if err != nil {
		return "", "", err
	}
	if !slices.Contains(c.endpoints, ep) {
		return "", "", fmt.Errorf("keep connected %s: adb endpoint %s is not one of the Client's", addr, ep)
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, "5555") // adb connect's default port
	}
	return ep, addr, nil
}

// unkeep drops addr from ep's keep list, under attachMu so that no
// re-attach decided before it connects addr after it.
func (c *Client) unkeep(endpoint, addr string) {
	ep, addr, err := c.keepKey(endpoint, addr)
	if err != nil {
		return
	}
	c.attachMu.Lock()
	defer c.attachMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.keep[ep], addr)
	if len(c.keep[ep]) == 0 {
		delete(c.keep, ep)
	}
}

// reattach connects again, in the background, the kept devices of ep that
// list (its latest) lacks and whose backoff has passed. One round per
// endpoint runs at a time; a round ends with ctx (the track session).
func (c *Client) reattach(ctx context.Context, ep string, list []DeviceInfo) {
	c.mu.Lock()
	kept := c.keep[ep]
	if len(kept) == 0 || c.reattaching[ep] {
		c.mu.Unlock()
		return
	}
	listed := make(map[string]bool, len(list))
	for _, d := range list {
		listed[d.Serial] = true
	}
	now := time.Now()
	var due []string
	for addr, k := range kept {
		switch {
		case listed[addr]:
			*k = keptDevice{}
		case !now.Before(k.next):
			k.backoff = min(max(2*k.backoff, trackBackoffMin), trackBackoffMax)
			k.next = now.Add(k.backoff)
			due = append(due, addr)
		}
	}
	if len(due) == 0 {
		c.mu.Unlock()
		return
	}
	slices.Sort(due)
	c.reattaching[ep] = true
	c.mu.Unlock()
	// The caller is one of c.wg's goroutines, so this Go cannot race Close's
	// Wait.
	c.wg.Go(func() {
		defer func() {
			c.mu.Lock()
			delete(c.reattaching, ep)
			c.mu.Unlock()
		}()
		var done []string
		for _, addr := range due {
			kept, err := c.reattachOne(ctx, ep, addr)
			if ctx.Err() != nil {
				return
			}
			if !kept {
				continue
			}
			if err == nil {
				done = append(done, addr)
				continue
			}
			c.mu.Lock()
			k := c.keep[ep][addr]
			warn := k != nil && !k.warned
			if warn {
				k.warned = true
			}
			c.mu.Unlock()
			if warn {
				c.log.Warn("cannot re-attach device to adb server, retrying", "endpoint", ep, "device", addr, "err", err)
			} else {
				c.log.Debug("cannot re-attach device to adb server, retrying", "endpoint", ep, "device", addr, "err", err)
			}
		}
		if len(done) > 0 {
			c.log.Info("re-attached devices to adb server", "endpoint", ep, "devices", done)
		}
	})
}

// reattachOne connects addr to ep if it is still kept (kept false: it is
// not); the poll's timeout bounds the attempt.
func (c *Client) reattachOne(ctx context.Context, ep, addr string) (kept bool, err error) {
	c.attachMu.Lock()
	defer c.attachMu.Unlock()
	c.mu.Lock()
	_, kept = c.keep[ep][addr]
	c.mu.Unlock()
	if !kept {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, trackPollTimeout)
	defer cancel()
	return true, c.Connect(ctx, ep, addr)
}
