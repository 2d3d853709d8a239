package adbd

import (
	"testing"
	"time"
)

func TestDirectionCost(t *testing.T) {
	t.Parallel()
	d := Direction{Latency: 10 * time.Millisecond, BytesPerSec: 1_000_000}
	if got, want := d.Cost(1_000_000-messageHeader), time.Second+10*time.Millisecond; got != want {
		t.Fatalf("Cost(1 MB) = %v, want %v", got, want)
	}
	if got := (Direction{}).Cost(1 << 30); got != 0 {
		t.Fatalf("zero direction costs %v", got)
	}
	if got, want := (Direction{Latency: time.Millisecond}).Cost(1<<30), time.Millisecond; got != want {
		t.Fatalf("unlimited bandwidth: %v, want %v", got, want)
	}
	l := Link{Up: d, Down: Direction{Latency: 2 * time.Millisecond}}
	if got, want := l.WriteCost(1_000_000-messageHeader), time.Second+12*time.Millisecond; got != want {
		t.Fatalf("WriteCost = %v, want %v", got, want)
	}
	if got, want := l.ReadCost(0), 2*time.Millisecond+10*time.Millisecond+24*time.Microsecond; got != want {
		t.Fatalf("ReadCost = %v, want %v", got, want)
	}
	if l.IsZero() || !(Link{}).IsZero() {
		t.Fatal("IsZero")
	}
}

// TestLaneSharesBandwidth: messages handed to one direction at the same
// time queue behind each other (one cable); latency overlaps.
func TestLaneSharesBandwidth(t *testing.T) {
	t.Parallel()
	d := Direction{Latency: 10 * time.Millisecond, BytesPerSec: 1_000_000}
	var l lane
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 1_000_000 - messageHeader // one second on the wire
	steps := []struct {
		at, want time.Duration // from t0
	}{
		{0, time.Second + 10*time.Millisecond},
		{0, 2*time.Second + 10*time.Millisecond},                       // waits for the first
		{1500 * time.Millisecond, 3*time.Second + 10*time.Millisecond}, // still queued
		{5 * time.Second, 6*time.Second + 10*time.Millisecond},         // idle again
	}
	for i, s := range steps {
		if got := l.arrival(d, t0.Add(s.at), n).Sub(t0); got != s.want {
			t.Errorf("message %d sent at %v arrives at %v, want %v", i, s.at, got, s.want)
		}
	}
}
