package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/redact"
)

// auditJSON runs `audit --json` with args against p's data directory and
// returns the records.
func auditJSON(t *testing.T, p *serveProc, args ...string) []auditLine {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := auditCmd(t.Context(), time.Now, append(args, "--json", "--data-dir", p.DataDir), &out, &errOut); err != nil {
		t.Fatalf("audit %v: %v (%s)", args, err, errOut.String())
	}
	var recs []auditLine
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r auditLine
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit %v: line %q: %v", args, sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

// tools returns the tool id of each record, in order.
func auditTools(recs []auditLine) []string {
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ToolID+"/"+r.Outcome)
	}
	return ids
}

// TestAuditCommand: tool calls on two phones of a running serve are read
// back by `adb-connector audit`, each filter narrowing them as documented,
// in the table and as JSON lines, with typed text never printed.
func TestAuditCommand(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	p, devs := startServeVirtual(t, t.TempDir(), env.ServerAddr, nil, "--virtual-devices", "2")
	a := newAgent(t, p, "")
	ch1, ch2 := a.open(t), a.open(t)
	a.pair(t, p, ch1, devs[0].Serial())
	a.pair(t, p, ch2, devs[1].Serial())

	const typed = "hunter2-do-not-print"
	a.invoke(t, ch1, "android_device_status", map[string]any{})
	a.invoke(t, ch1, "android_type_text", map[string]any{"text": typed})
	a.invoke(t, ch1, "android_tap", map[string]any{"x": "left", "y": 1}) // invalid_arguments
	a.invoke(t, ch2, "android_device_status", map[string]any{})
	// mid splits the calls in two for --since and --until; the audit
	// keeps milliseconds, so the second batch starts a millisecond on.
	mid := time.Now()
	for time.Now().UnixMilli() <= mid.UnixMilli() {
	}
	a.invoke(t, ch2, "android_screenshot", map[string]any{"format": "jpeg"})

	all := []string{"android_device_status/ok", "android_type_text/ok", "android_tap/invalid_arguments",
		"android_device_status/ok", "android_screenshot/ok"}
	hintA, hintB := redact.SerialHint(devs[0].Serial()), redact.SerialHint(devs[1].Serial())
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"all, oldest first", nil, all},
		{"since duration", []string{"--since", "1h"}, all},
		{"since days", []string{"--since", "1d"}, all},
		{"since RFC 3339", []string{"--since", mid.Format(time.RFC3339Nano)}, all[4:]},
		{"until RFC 3339", []string{"--until", mid.Format(time.RFC3339Nano)}, all[:4]},
		{"until duration", []string{"--until", "1h"}, nil},
		{"since in the future", []string{"--since", time.Now().Add(time.Hour).Format(time.RFC3339)}, nil},
		{"channel", []string{"--channel", ch1}, all[:3]},
		{"device serial", []string{"--device", devs[0].Serial()}, all[:2]},
		{"device endpoint/serial", []string{"--device", env.ServerAddr + "/" + devs[1].Serial()}, all[3:]},
		{"device hint", []string{"--device", hintB}, all[3:]},
		{"tool", []string{"--tool", "android_device_status"}, []string{all[0], all[3]}},
		{"outcome", []string{"--outcome", "invalid_arguments"}, all[2:3]},
		{"outcome ok on a channel", []string{"--outcome", "ok", "--channel", ch2}, all[3:]},
		{"limit keeps the newest", []string{"--limit", "2"}, all[3:]},
		{"nothing matches", []string{"--tool", "android_swipe"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := auditTools(auditJSON(t, p, tc.args...))
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("audit %v:\n got %v\nwant %v", tc.args, got, tc.want)
			}
		})
	}

	recs := auditJSON(t, p)
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5", len(recs))
	}
	if r := recs[1]; r.ChannelID != ch1 || r.Device != hintA || r.ToolCallID == "" || r.Replayed ||
		string(r.Args) != `{"text":{"len":20}}` {
		t.Errorf("type_text record %+v, want ch1, %s, a call id and the text as its length only", r, hintA)
	}
	if r := recs[2]; r.Device != "" {
		t.Errorf("a call refused before device resolution names device %q", r.Device)
	}
	var table, errOut bytes.Buffer
	if err := auditCmd(t.Context(), time.Now, []string{"--data-dir", p.DataDir}, &table, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TIME", "CHANNEL", "DEVICE", "TOOL", "OUTCOME", "LATENCY", "ARGS", redact.ChannelLabel(ch1), hintA, hintB,
		"android_tap", "invalid_arguments", `{"format":"jpeg"}`} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if lines := strings.Count(table.String(), "\n"); lines != 6 {
		t.Errorf("table has %d lines, want a header and 5 rows:\n%s", lines, table.String())
	}
	for _, out := range []string{table.String(), string(mustJSON(t, recs))} {
		if strings.Contains(out, typed) || strings.Contains(out, "hunter2") {
			t.Fatalf("audit printed typed text:\n%s", out)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAuditFollow: `audit --follow` prints the newest matching call, then
// each new matching call as serve writes it, skips others, and returns
// cleanly when its context ends (SIGINT).
func TestAuditFollow(t *testing.T) {
	t.Parallel()
	_, p, _, a, ch := pairedVirtualPhone(t)
	a.invoke(t, ch, "android_device_status", map[string]any{})

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := auditCmd(ctx, time.Now, []string{"--follow", "--json", "--limit", "1", "--tool", "android_device_status",
			"--poll-interval", "20ms", "--data-dir", p.DataDir}, pw, io.Discard)
		pw.Close()
		done <- err
	}()
	lines := make(chan auditLine)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var r auditLine
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("follow line %q: %v", sc.Text(), err)
				return
			}
			lines <- r
		}
	}()
	next := func(want string) auditLine {
		t.Helper()
		select {
		case r, ok := <-lines:
			if !ok || r.ToolID != want {
				t.Fatalf("follow printed %+v (open %v), want a %s record", r, ok, want)
			}
			return r
		case <-time.After(setupWait):
			t.Fatalf("follow printed no %s record within %s", want, setupWait)
		}
		return auditLine{}
	}
	first := next("android_device_status")
	a.invoke(t, ch, "android_press_key", map[string]any{"key": "home"}) // filtered out
	a.invoke(t, ch, "android_device_status", map[string]any{})
	second := next("android_device_status")
	if second.ID <= first.ID {
		t.Errorf("follow printed id %d after %d", second.ID, first.ID)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("follow ended with %v, want nil on interrupt", err)
		}
	case <-time.After(setupWait):
		t.Fatal("follow did not end after its context was canceled")
	}
	for r := range lines {
		t.Errorf("follow printed %+v after the filtered-out call", r)
	}
}

// TestAuditFlagErrors: bad values are refused with a line saying what is
// wanted, before any database is opened.
func TestAuditFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--since", "2 hours"}, "--since: \"2 hours\": want a duration (90m, 2h, 7d) or an RFC 3339 time"},
		{[]string{"--until", "2026-13-01T00:00:00Z"}, "--until: \"2026-13-01T00:00:00Z\": want a duration"},
		{[]string{"--since", "2026-01-02 15:04:05"}, "want a duration (90m, 2h, 7d) or an RFC 3339 time"},
		{[]string{"--since", "-2h"}, "must not be negative"},
		{[]string{"--since", "xd"}, "want a duration"},
		{[]string{"--limit", "-1"}, "--limit -1: want 1..10000"},
		{[]string{"--limit", "0"}, "--limit 0: want 1..10000"},
		{[]string{"--limit", "10001"}, "--limit 10001: want 1..10000"},
		{[]string{"--since", "1h", "--until", "2h"}, "--since must be before --until"},
		{[]string{"--follow", "--until", "1h"}, "--follow prints new calls"},
		{[]string{"--follow", "--poll-interval", "0s"}, "--poll-interval must be positive"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := auditCmd(t.Context(), time.Now, append(tc.args, "--data-dir", t.TempDir()), &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
	t.Run("no database", func(t *testing.T) {
		dir := t.TempDir()
		err := auditCmd(t.Context(), time.Now, []string{"--data-dir", dir}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "no database in "+dir) {
			t.Errorf("err %v, want no database in %s", err, dir)
		}
	})
	t.Run("unknown flag", func(t *testing.T) {
		var errOut bytes.Buffer
		if err := auditCmd(t.Context(), time.Now, []string{"--sinse", "1h"}, io.Discard, &errOut); err == nil ||
			errOut.String() != "adb-connector audit: unknown flag --sinse (did you mean --since?); see adb-connector audit --help\n" {
			t.Errorf("err %v, stderr %q: want one line with the closest flag", err, errOut.String())
		}
	})
}

// TestAuditRetentionFlag: --audit-retention and its env take days or a Go
// duration and reach the tools' config; zero, negative or garbage is an
// error naming the flag's form.
func TestAuditRetentionFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		want time.Duration
		err  string
	}{
		{nil, "", audit.DefaultRetention, ""},
		{[]string{"--audit-retention", "30d"}, "", 30 * 24 * time.Hour, ""},
		{[]string{"--audit-retention", "36h"}, "", 36 * time.Hour, ""},
		{nil, "7d", 7 * 24 * time.Hour, ""},
		{[]string{"--audit-retention", "2d"}, "7d", 48 * time.Hour, ""},
		{[]string{"--audit-retention", "0d"}, "", 0, "must be positive"},
		{[]string{"--audit-retention", "-1h"}, "", 0, "must be positive"},
		{[]string{"--audit-retention", "forever"}, "", 0, "want a duration such as 90d or 720h"},
		{nil, "soon", 0, "ADB_CONNECTOR_AUDIT_RETENTION"},
	} {
		t.Run(strings.Join(tc.args, " ")+" env="+tc.env, func(t *testing.T) {
			t.Setenv("ADB_CONNECTOR_AUDIT_RETENTION", tc.env)
			var errOut bytes.Buffer
			cfg, err := parseServeFlags(tc.args, &errOut)
			if err != nil {
				err = fmt.Errorf("%w: %s", err, errOut.String())
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Device.AuditRetention != tc.want {
				t.Errorf("retention %s, want %s", cfg.Device.AuditRetention, tc.want)
			}
		})
	}
}
