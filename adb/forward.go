package adb

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// checkSpec validates a forward socket spec ("tcp:8080", "localabstract:x").
func checkSpec(s string) error {
	kind, _, ok := strings.Cut(s, ":")
	if !ok || kind == "" || strings.ContainsAny(s, "; \t\n\x00") || len(s) > 256 {
		return fmt.Errorf("adb: bad socket spec %q", s)
	}
	return nil
}

// Forward makes local on the adb server's host (e.g. "tcp:0" for any free
// port, "tcp:8080") forward to remote on the device ("tcp:8080",
// "localabstract:NAME"), as `adb forward`. It returns the bound local spec
// ("tcp:34807" for "tcp:0"). Default timeout: 5 s.
func (d *Device) Forward(ctx context.Context, local, remote string) (string, error) {
	if err := checkSpec(local); err != nil {
		return "", err
	}
	if err := checkSpec(remote); err != nil {
		return "", err
	}
	ctx, cancel := withDefaultTimeout(ctx, 5*time.Second)
	defer cancel()
	hc, err := d.c.dialHost(ctx, d.endpoint)
	if err != nil {
		return "", fmt.Errorf("forward: %w", err)
	}
	defer hc.Close()
	// Answer: OKAY (device found), OKAY or FAIL (listener), then the port
	// when tcp:0 was asked for.
	if err := hc.request("host-serial:" + d.serial + ":forward:" + local + ";" + remote); err != nil {
		return "", fmt.Errorf("forward %s: %w", local, err)
	}
	if err := hc.status(); err != nil {
		return "", fmt.Errorf("forward %s: %w", local, err)
	}
	if local != "tcp:0" {
		return local, nil
	}
	port, err := hc.readHex()
	if err != nil {
		return "", fmt.Errorf("forward %s: %w", local, err)
	}
	return "tcp:" + strings.TrimSpace(port), nil
}

// ForwardRemove removes the forward listening on local. Default timeout:
// 5 s.
func (d *Device) ForwardRemove(ctx context.Context, local string) error {
	if err := checkSpec(local); err != nil {
		return err
	}
	ctx, cancel := withDefaultTimeout(ctx, 5*time.Second)
	defer cancel()
	hc, err := d.c.dialHost(ctx, d.endpoint)
	if err != nil {
		return fmt.Errorf("forward remove: %w", err)
	}
	defer hc.Close()
	if err := hc.request("host-serial:" + d.serial + ":killforward:" + local); err != nil {
		return fmt.Errorf("forward remove %s: %w", local, err)
	}
	if err := hc.status(); err != nil {
		return fmt.Errorf("forward remove %s: %w", local, err)
	}
	return nil
}
