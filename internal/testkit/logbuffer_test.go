package testkit

import (
	"context"
	"strings"
	"sync"
	"testing"
)

func TestLogBuffer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		logger func(*LogBuffer) func(msg string, args ...any)
		want   []string
	}{
		{"text", func(l *LogBuffer) func(string, ...any) { return l.TextLogger().Debug }, []string{"level=DEBUG", "msg=hello", "k=v"}},
		{"json", func(l *LogBuffer) func(string, ...any) { return l.JSONLogger().Debug }, []string{`"level":"DEBUG"`, `"msg":"hello"`, `"k":"v"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var l LogBuffer
			logf := tt.logger(&l)
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() { logf("hello", "k", "v") })
			}
			wg.Wait()
			out := l.String()
			if n := strings.Count(out, "\n"); n != 8 {
				t.Fatalf("got %d lines, want 8:\n%s", n, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestLogBufferWait(t *testing.T) {
	var l LogBuffer
	go func() {
		l.Write([]byte("adbc-helper: sdk=3"))
		l.Write([]byte("3 ready\n"))
	}()
	if !l.Wait(t.Context(), "sdk=33 ready\n") {
		t.Fatal("Wait returned false before the context ended")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if l.Wait(ctx, "never written") {
		t.Fatal("Wait found what was never written")
	}
}
