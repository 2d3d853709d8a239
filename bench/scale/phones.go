package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

// phones is the `adb-connector emulator` child process: the virtual phones
// live there, so the connector's RSS counts none of their memory.
type phones struct {
	Addrs []string // "127.0.0.1:PORT", one per phone
	cmd   *exec.Cmd
	done  chan struct{}
}

// startPhones runs `bin emulator --devices n --profile profile --scenario
// scenario` and waits (at most 60 s) until it has printed the n addresses
// it listens on. Its log goes to logw.
func startPhones(ctx context.Context, bin string, n int, profile, scenario string, logw io.Writer) (*phones, error) {
	cmd := exec.Command(bin, "emulator", "--devices", strconv.Itoa(n), "--profile", profile, "--scenario", scenario)
	cmd.Stderr = logw
	// If the bench program dies without its cleanup, the phones die with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &phones{cmd: cmd, done: make(chan struct{})}
	addrs := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a := strings.TrimSpace(sc.Text()); a != "" && len(got) < n {
				got = append(got, a)
				if len(got) == n {
					addrs <- got
				}
			}
		}
		cmd.Wait()
		close(p.done)
	}()
	select {
	case p.Addrs = <-addrs:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("adb-connector emulator exited: %v", cmd.ProcessState)
	case <-time.After(60 * time.Second):
		p.stop()
		return nil, fmt.Errorf("adb-connector emulator: %d phones not listening within 60 s", n)
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
}

// Pid is the emulator process id (for /proc).
func (p *phones) Pid() int { return p.cmd.Process.Pid }

// stop sends SIGINT and waits (SIGKILL after 10 s). Idempotent.
func (p *phones) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// connect runs `adb connect` for every phone, phone i on server i mod
// len(servers), so the phones are spread evenly; it returns how many went
// to each server. The adb servers list a phone connected over TCP by its
// address, which is therefore its serial.
func connect(ctx context.Context, servers []*adbserver.Server, addrs []string) ([]int, error) {
	per := make([]int, len(servers))
	for i, a := range addrs {
		k := i % len(servers)
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		out, err := adbserver.Connect(cctx, servers[k].Addr, a)
		cancel()
		if err != nil || !strings.Contains(out, "connected to") {
			return nil, fmt.Errorf("adb -P %d connect %s: %q %v", servers[k].Port, a, out, err)
		}
		per[k]++
	}
	return per, nil
}
