package adbd

import (
	"io"
	"sync"
	"time"
)

// coalesceDelay is how long output may wait for more before it is sent.
// A real adbd reads a command's output from a pipe as it becomes readable,
// so the many small writes of a fast command (dumpsys prints line by line)
// reach the host in few packets: what the kernel buffered meanwhile. A
// packet per write would cost the host an adb round of work per line.
const coalesceDelay = 200 * time.Microsecond

// coalescer gathers writes and passes them on in one Write per
// coalesceDelay (or at once when maxChunk bytes are waiting). Close sends
// what is left and waits for it. Safe for concurrent use.
type coalescer struct {
	w        io.Writer
	maxChunk int

	mu      sync.Mutex
	buf     []byte
	timer   *time.Timer
	err     error
	closed  bool
	writeMu sync.Mutex // orders the writes to w
}

func newCoalescer(w io.Writer, maxChunk int) *coalescer {
	return &coalescer{w: w, maxChunk: maxChunk}
}

func (c *coalescer) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.err != nil || c.closed {
		err := c.err
		c.mu.Unlock()
		if err == nil {
			err = io.ErrClosedPipe
		}
		return 0, err
	}
	c.buf = append(c.buf, p...)
	full := len(c.buf) >= c.maxChunk
	if !full && c.timer == nil {
		c.timer = time.AfterFunc(coalesceDelay, func() { c.flush() })
	}
	c.mu.Unlock()
	if full {
		if err := c.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// flush sends what is waiting, in maxChunk pieces.
func (c *coalescer) flush() error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.mu.Lock()
	b := c.buf
	c.buf = nil
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	for len(b) > 0 {
		n := min(len(b), c.maxChunk)
		if _, err := c.w.Write(b[:n]); err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return err
		}
		b = b[n:]
	}
	return nil
}

// Flush sends what is waiting now. A shell that has run a line and waits
// for the next one calls it (through Backend.Run's writers): a real adbd
// has read the pipe dry by then, since nothing more is coming for a while.
func (c *coalescer) Flush() error { return c.flush() }

// Close sends what is left; later writes fail.
func (c *coalescer) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return c.flush()
}
