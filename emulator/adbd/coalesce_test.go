package adbd

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"
)

// recWriter records each Write it gets.
type recWriter struct {
	mu     sync.Mutex
	writes [][]byte
}

func (r *recWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, append([]byte(nil), p...))
	return len(p), nil
}

func (r *recWriter) all() ([]byte, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Join(r.writes, nil), len(r.writes)
}

func TestCoalescer(t *testing.T) {
	t.Parallel()
	var r recWriter
	c := newCoalescer(&r, 16)
	var want bytes.Buffer
	for i := range 100 {
		line := fmt.Sprintf("line %02d\n", i)
		want.WriteString(line)
		if _, err := c.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	got, n := r.all()
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("bytes reordered or lost:\n%s", got)
	}
	for _, w := range r.writes {
		if len(w) > 16 {
			t.Fatalf("a write of %d bytes, over the chunk of 16", len(w))
		}
	}
	if n >= 100 {
		t.Errorf("%d writes for 100 small ones: nothing coalesced", n)
	}
	if _, err := c.Write([]byte("late")); err == nil {
		t.Error("a write after Close succeeded")
	}
}

// TestCoalescerFlushesWhileRunning: output of a command that keeps running
// reaches the host without waiting for its end.
func TestCoalescerFlushesWhileRunning(t *testing.T) {
	t.Parallel()
	var r recWriter
	c := newCoalescer(&r, 1<<16)
	defer c.Close()
	c.Write([]byte("tick\n"))
	deadline := time.Now().Add(5 * time.Second) // failure detector only
	for {
		if got, _ := r.all(); string(got) == "tick\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("output held back while the command runs")
		}
		time.Sleep(time.Millisecond)
	}
}
