package connector

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

const (
	statusGoingAway       = websocket.StatusGoingAway
	statusUnsupportedData = websocket.StatusUnsupportedData
	statusPolicyViolation = websocket.StatusPolicyViolation
)

// conn is one /ws data plane. Ownership: the HTTP handler goroutine is the
// reader; it starts one writer and waits for it and for every request
// goroutine it started before returning. Everything sent goes through the
// bounded out queue, so frames never interleave and a slow peer is dropped.
type conn struct {
	s      *Server
	ws     *websocket.Conn
	log    *slog.Logger
	ctx    context.Context // canceled when the reader exits or the server stops
	cancel context.CancelFunc
	out    chan []byte
	sem    chan struct{} // control requests in flight (Config.MaxInFlight)
	calls  int           // tool calls in flight (Config.MaxToolCalls); s.mu
	reqs   sync.WaitGroup

	closeOnce   sync.Once
	closing     chan struct{} // closed by close: writer flushes then closes the socket
	closeCode   websocket.StatusCode
	closeReason string
	dead        chan struct{} // closed when the writer has exited

	mu          sync.Mutex
	connectorID string   // "" until hello completed
	profiles    []string // hello.supported_profiles ∩ Card supports.profiles
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !slices.Contains(headerTokens(r.Header, "Sec-WebSocket-Protocol"), Subprotocol) {
		http.Error(w, "subprotocol "+Subprotocol+" required", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	s.connsWG.Add(1)
	s.mu.Unlock()
	defer s.connsWG.Done()

	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:    []string{Subprotocol},
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		s.log.Debug("websocket accept failed", "err", err)
		return
	}
	ws.SetReadLimit(s.cfg.ReadLimit)
	c := &conn{
		s:       s,
		ws:      ws,
		log:     s.log.With("remote", r.RemoteAddr),
		out:     make(chan []byte, s.cfg.WriteQueue),
		sem:     make(chan struct{}, s.cfg.MaxInFlight),
		closing: make(chan struct{}),
		dead:    make(chan struct{}),
	}
	c.ctx, c.cancel = context.WithCancel(s.baseCtx)
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.metrics.connections.Inc()
	c.log.Debug("data plane connected")

	go c.writeLoop()
	helloTimer := time.AfterFunc(s.cfg.HelloTimeout, func() {
		if id, _ := c.hello(); id == "" {
			c.log.Debug("no connector.hello in time; closing", "timeout", s.cfg.HelloTimeout.String())
			c.close(statusPolicyViolation, "connector.hello not received in time")
		}
	})
	c.readLoop()
	helloTimer.Stop()

	c.close(websocket.StatusNormalClosure, "")
	c.cancel()
	c.reqs.Wait()
	<-c.dead
	s.state.connClosed(c)
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.metrics.connections.Dec()
	c.log.Debug("data plane disconnected")
}

func (c *conn) readLoop() {
	for {
		// Not c.ctx: a canceled read context makes the library drop the
		// socket without a close frame; the reader ends when the socket closes.
		typ, b, err := c.ws.Read(context.Background())
		if err != nil {
			return
		}
		if typ != websocket.MessageText {
			c.close(statusUnsupportedData, "text frames only")
			return
		}
		c.s.handleFrame(c, b)
	}
}

// writeLoop is the only writer of the socket.
func (c *conn) writeLoop() {
	defer close(c.dead)
	for {
		select {
		case b := <-c.out:
			if !c.write(b) {
				return
			}
		case <-c.closing:
			for {
				select {
				case b := <-c.out:
					if !c.write(b) {
						return
					}
				default:
					c.ws.Close(c.closeCode, c.closeReason)
					return
				}
			}
		}
	}
}

func (c *conn) write(b []byte) bool {
	ctx, cancel := context.WithTimeout(context.Background(), c.s.cfg.WriteTimeout)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		c.log.Debug("write failed; dropping connection", "err", err)
		c.ws.CloseNow()
		return false
	}
	return true
}

// close asks the writer to flush what is queued and close with code. Idempotent.
func (c *conn) close(code websocket.StatusCode, reason string) {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeReason = code, reason
		close(c.closing)
	})
}

// send queues p. When the queue is full it waits up to WriteTimeout for room,
// then drops the connection as a slow peer. It never blocks longer.
func (c *conn) send(p *Packet) bool {
	if p.Schema == "" {
		p.Schema = PacketSchema
	}
	if p.PacketID == "" {
		p.PacketID = c.s.ids.next()
	}
	if p.Time == 0 {
		p.Time = nowMillis()
	}
	b, err := json.Marshal(p)
	if err != nil {
		c.log.Error("marshal packet", "type", p.Type, "err", err)
		return false
	}
	c.s.metrics.packetsOut.WithLabelValues(knownType(p.Type)).Inc()
	if p.Error != nil {
		c.s.metrics.errors.WithLabelValues(p.Error.Code).Inc()
	}
	select {
	case c.out <- b:
		return true
	case <-c.dead:
		return false
	default:
	}
	t := time.NewTimer(c.s.cfg.WriteTimeout)
	defer t.Stop()
	select {
	case c.out <- b:
		return true
	case <-c.dead:
		return false
	case <-t.C:
		c.s.metrics.slowPeers.Inc()
		c.log.Warn("peer is not reading; dropping connection", "queue", cap(c.out))
		c.close(statusPolicyViolation, "peer not reading")
		c.ws.CloseNow()
		return false
	}
}

func (c *conn) hello() (connectorID string, profiles []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connectorID, c.profiles
}

func (c *conn) setHello(connectorID string, profiles []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.connectorID, c.profiles = connectorID, profiles
}

func headerTokens(h http.Header, key string) []string {
	var out []string
	for _, v := range h.Values(key) {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}
