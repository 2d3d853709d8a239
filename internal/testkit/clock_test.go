package testkit

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	t.Parallel()
	c := NewClock()
	for _, tt := range []struct {
		name string
		step time.Duration
		want time.Time
	}{
		{"start", 0, ClockStart},
		{"forward", 90 * time.Second, ClockStart.Add(90 * time.Second)},
		{"back", -30 * time.Second, ClockStart.Add(time.Minute)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c.Advance(tt.step)
			if got := c.Now(); !got.Equal(tt.want) {
				t.Fatalf("Now = %v, want %v", got, tt.want)
			}
		})
	}
}
