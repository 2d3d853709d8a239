package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

// The baseline: the same device operation sent straight to the adb
// server's socket (no adb CLI, whose process start would hide our cost).

// rawShellV2 runs cmd with host:transport:SERIAL then shell,v2:CMD and
// reads the shell protocol packets until the exit packet.
func rawShellV2(ctx context.Context, addr, serial, cmd string) error {
	c, err := adbserver.Dial(ctx, addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := adbserver.Request(c, "host:transport:"+serial); err != nil {
		return err
	}
	if err := adbserver.Request(c, "shell,v2:"+cmd); err != nil {
		return err
	}
	var hdr [5]byte
	for {
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return fmt.Errorf("shell,v2 %q: %w", cmd, err)
		}
		n := binary.LittleEndian.Uint32(hdr[1:])
		body := make([]byte, n)
		if _, err := io.ReadFull(c, body); err != nil {
			return fmt.Errorf("shell,v2 %q: %w", cmd, err)
		}
		if hdr[0] == 3 { // exit
			if n != 1 || body[0] != 0 {
				return fmt.Errorf("shell,v2 %q: exit %v", cmd, body)
			}
			return nil
		}
	}
}

// rawExec runs cmd with exec:CMD and returns its whole output.
func rawExec(ctx context.Context, addr, serial, cmd string) ([]byte, error) {
	c, err := adbserver.Dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := adbserver.Request(c, "host:transport:"+serial); err != nil {
		return nil, err
	}
	if err := adbserver.Request(c, "exec:"+cmd); err != nil {
		return nil, err
	}
	return io.ReadAll(c)
}
