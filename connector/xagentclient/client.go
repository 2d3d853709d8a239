package xagentclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/adb-connector/adb-connector/connector"
)

// Options configure Dial. The zero value dials with the standard
// subprotocol, no API key, no validation.
type Options struct {
	// APIKey is sent as "Authorization: Bearer <key>" when non-empty.
	APIKey string
	// Subprotocols offered; nil means [connector.Subprotocol], empty non-nil none.
	Subprotocols []string
	// Validate, when set, checks every frame received (a schema check in
	// tests); its errors, and a packet without time, are kept (Errors).
	Validate func(frame []byte) error
	// KeepRaw keeps every received frame (for secret scans); see Raw.
	KeepRaw bool
}

// Client is an xAgent-side data plane: the tests' peer and `adb-connector
// try`'s. Safe for concurrent use.
type Client struct {
	ws   *websocket.Conn
	opts Options
	seq  atomic.Uint64
	done chan struct{}

	mu       sync.Mutex
	waiters  map[string]chan *connector.Packet
	pushes   []*connector.Packet
	notify   chan struct{} // closed and replaced when pushes grows
	errs     []error
	raw      [][]byte
	readErr  error
	closeErr websocket.CloseError
}

// ErrClosed is returned when the socket closed while waiting.
var ErrClosed = errors.New("xagent client: connection closed")

// Dial connects to baseURL (http://host:port) + "/ws". The returned
// *http.Response explains a refused upgrade (status 401/403/400).
func Dial(ctx context.Context, baseURL string, opts Options) (*Client, *http.Response, error) {
	h := http.Header{}
	if opts.APIKey != "" {
		h.Set("Authorization", "Bearer "+opts.APIKey)
	}
	subs := opts.Subprotocols
	if subs == nil {
		subs = []string{connector.Subprotocol}
	}
	u := "ws" + strings.TrimPrefix(baseURL, "http") + "/ws"
	ws, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: h, Subprotocols: subs, CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return nil, resp, err
	}
	ws.SetReadLimit(-1)
	c := &Client{ws: ws, opts: opts, done: make(chan struct{}), waiters: map[string]chan *connector.Packet{}, notify: make(chan struct{})}
	go c.readLoop()
	return c, resp, nil
}

func (c *Client) readLoop() {
	defer close(c.done)
	for {
		typ, b, err := c.ws.Read(context.Background())
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			errors.As(err, &c.closeErr)
			c.mu.Unlock()
			return
		}
		c.mu.Lock()
		if c.opts.KeepRaw {
			c.raw = append(c.raw, b)
		}
		c.mu.Unlock()
		if typ != websocket.MessageText {
			c.addErr(fmt.Errorf("server sent a binary frame"))
			continue
		}
		if c.opts.Validate != nil {
			if err := c.opts.Validate(b); err != nil {
				c.addErr(err)
			}
		}
		var p connector.Packet
		if err := json.Unmarshal(b, &p); err != nil {
			c.addErr(fmt.Errorf("undecodable packet: %w", err))
			continue
		}
		if c.opts.Validate != nil && p.Time <= 0 {
			c.addErr(fmt.Errorf("%s without time", p.Type))
		}
		c.mu.Lock()
		if w, ok := c.waiters[p.RequestID]; ok && p.RequestID != "" && !strings.HasSuffix(p.Type, ".push") {
			delete(c.waiters, p.RequestID)
			w <- &p
		} else {
			c.pushes = append(c.pushes, &p)
			close(c.notify)
			c.notify = make(chan struct{})
		}
		c.mu.Unlock()
	}
}

func (c *Client) addErr(err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

// Errors returns every validation problem seen so far.
func (c *Client) Errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]error(nil), c.errs...)
}

// Raw returns every frame received (Options.KeepRaw).
func (c *Client) Raw() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.raw...)
}

// NextID returns a fresh id with prefix ("req_", "pkt_").
func (c *Client) NextID(prefix string) string {
	return prefix + strconv.FormatUint(c.seq.Add(1), 10)
}

// Send writes one packet as a text frame, filling schema, packet_id and time.
func (c *Client) Send(ctx context.Context, p *connector.Packet) error {
	if p.Schema == "" {
		p.Schema = connector.PacketSchema
	}
	if p.PacketID == "" {
		p.PacketID = c.NextID("pkt_c")
	}
	if p.Time == 0 {
		p.Time = time.Now().UnixMilli()
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return c.ws.Write(ctx, websocket.MessageText, b)
}

// SendRaw writes one frame as is.
func (c *Client) SendRaw(ctx context.Context, typ websocket.MessageType, b []byte) error {
	return c.ws.Write(ctx, typ, b)
}

// Request sends a request of type typ on channelID (may be empty) and waits
// for the packet answering its request_id: the ack or an error packet.
func (c *Client) Request(ctx context.Context, typ, channelID string, payload any) (*connector.Packet, error) {
	p := &connector.Packet{Type: typ, RequestID: c.NextID("req_"), ChannelID: channelID}
	if payload != nil {
		b, err := json.Marshal(payload)
		if err != nil {
			return nil, err
		}
		p.Payload = b
	}
	return c.RequestPacket(ctx, p)
}

// RequestPacket sends p (RequestID required) and waits for its answer.
func (c *Client) RequestPacket(ctx context.Context, p *connector.Packet) (*connector.Packet, error) {
	w := make(chan *connector.Packet, 1)
	c.mu.Lock()
	c.waiters[p.RequestID] = w
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiters, p.RequestID)
		c.mu.Unlock()
	}()
	if err := c.Send(ctx, p); err != nil {
		return nil, err
	}
	select {
	case r := <-w:
		if r.ReplyTo != p.PacketID {
			c.addErr(fmt.Errorf("%s: reply_to %q, want %q", r.Type, r.ReplyTo, p.PacketID))
		}
		return r, nil
	case <-c.done:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// WaitPush waits for the next unconsumed packet of type typ that answered no
// pending request (pushes, and errors without a waiter) and consumes it.
func (c *Client) WaitPush(ctx context.Context, typ string) (*connector.Packet, error) {
	for {
		c.mu.Lock()
		for i, p := range c.pushes {
			if p.Type == typ {
				c.pushes = append(c.pushes[:i], c.pushes[i+1:]...)
				c.mu.Unlock()
				return p, nil
			}
		}
		n := c.notify
		c.mu.Unlock()
		select {
		case <-n:
		case <-c.done:
			return nil, ErrClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Hello sends connector.hello with supported_profiles [xagent.device.v1] and
// returns the issued connector_id.
func (c *Client) Hello(ctx context.Context, cardID, connectorID string) (string, error) {
	r, err := c.Request(ctx, connector.TypeHello, "", map[string]any{
		"connector_card_id":  cardID,
		"connector_id":       connectorID,
		"protocol_version":   connector.ProtocolVersion,
		"supported_profiles": []string{connector.ProfileDeviceV1},
	})
	if err != nil {
		return "", err
	}
	if r.Type != connector.TypeHelloAck {
		return "", fmt.Errorf("hello: got %s %v", r.Type, r.Error)
	}
	var ack struct {
		ConnectorID string `json:"connector_id"`
	}
	if err := json.Unmarshal(r.Payload, &ack); err != nil {
		return "", err
	}
	return ack.ConnectorID, nil
}

// OpenChannel sends channel.open (restoreID empty for a new channel) and
// returns the channel id and the ack.
func (c *Client) OpenChannel(ctx context.Context, restoreID string) (string, *connector.Packet, error) {
	r, err := c.Request(ctx, connector.TypeChannelOpen, restoreID, map[string]any{})
	if err != nil {
		return "", nil, err
	}
	if r.Type != connector.TypeChannelOpenAck {
		return "", r, fmt.Errorf("channel.open: got %s %v", r.Type, r.Error)
	}
	if r.ChannelID == "" {
		return "", r, errors.New("channel.open.ack without envelope connector_channel_id")
	}
	return r.ChannelID, r, nil
}

// Done is closed when the socket is gone.
func (c *Client) Done() <-chan struct{} { return c.done }

// CloseStatus returns the close code the server sent, or -1.
func (c *Client) CloseStatus() websocket.StatusCode {
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeErr.Code == 0 {
		return -1
	}
	return c.closeErr.Code
}

// Close closes the socket normally and waits for the reader. Idempotent.
func (c *Client) Close() error {
	err := c.ws.Close(websocket.StatusNormalClosure, "")
	<-c.done
	return err
}

// CloseNow drops the connection without a close frame, as a peer that
// vanishes mid-call does, and waits for the reader. Idempotent.
func (c *Client) CloseNow() error {
	err := c.ws.CloseNow()
	<-c.done
	return err
}
