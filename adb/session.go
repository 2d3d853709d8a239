package adb

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/adb-connector/adb-connector/internal/tcpopt"
)

// A shell stream costs the phone more than its command: the host's OPEN and
// the device's OKAY cross the cable, adbd forks and starts the shell, and
// the stdin close, the exit packet and the CLSE cross it again. Short
// commands (properties, status dumps) therefore go to one shell kept open
// per device: a raw shell v2 stream without a command, which adbd serves
// with the device's shell reading stdin (AOSP packages/modules/adb/daemon/
// shell_service.cpp), non-interactive since stdin is no terminal (mksh(1)).
// Each command is written as one line:
//
//	(CMD
//	) </dev/null; echo MARK:$?; echo MARK >&2
//
// The subshell keeps what CMD does to shell state (cd, exit, variables)
// from the session, as `sh -c` would; /dev/null keeps it from reading the
// session's input. MARK is random per command, so no output can fake it:
// stdout ends with "MARK:STATUS\n" and stderr with "MARK\n" once CMD is
// done, and what comes before is exactly what a stream of its own would
// have carried. One command at a time runs on the session; a command that
// finds it busy, or a long, streaming or binary one, opens a stream of its
// own as before.

// sessionMaxTimeout is the longest deadline a session command may have:
// beyond it a command is not short, and holding the session that long
// would send the other short commands to streams of their own.
const sessionMaxTimeout = DefaultShellTimeout

// sessionMaxLine bounds the command line a session carries in its one
// stdin packet; longer scripts take a stream of their own.
const sessionMaxLine = 4 << 10

// markerPrefix starts every session marker (a fixed part keeps them
// recognizable in a packet capture; the random part makes them unique).
const markerPrefix = "__adbc_end_"

// shellSession is an open session stream. It is used by one command at a
// time (Device.sessBusy).
type shellSession struct {
	hc     *hostConn
	cancel context.CancelFunc // ends hc's lifetime (and so closes it)
	used   bool               // a command ended on it
	timer  *idleTimer         // closes the session when unused (Config.StreamIdle)
}

func (s *shellSession) close() {
	s.timer.stop()
	s.cancel()
	_ = s.hc.Close()
}

// idle reports whether an idle session is still usable: nothing is
// waiting to be read on it (an idle shell prints nothing; an exit packet
// or the end of the stream mean it ended while idle, e.g. the adb server
// restarted or the device dropped).
func (s *shellSession) idle() bool {
	return s.hc.br.Buffered() == 0 && !readable(s.hc.nc)
}

// shortShell runs a trusted command line on the device's session when it
// may (see the top of this file), else on a stream of its own; the result
// and errors are those of runShellV2 either way. The caller holds the
// limiter.
func (d *Device) shortShell(ctx context.Context, cmd string) (Result, error) {
	if res, err, ok := d.sessionShell(ctx, cmd); ok {
		return res, err
	}
	return d.runShellV2(ctx, cmd)
}

// sessionShell runs cmd on the session; ok is false when it did not run
// there (busy, too long, or no session could be opened) and must run on a
// stream of its own.
func (d *Device) sessionShell(ctx context.Context, cmd string) (res Result, err error, ok bool) {
	if dl, has := ctx.Deadline(); !has || time.Until(dl) > sessionMaxTimeout || len(cmd) > sessionMaxLine {
		return Result{}, nil, false
	}
	if !d.sessBusy.TryLock() {
		return Result{}, nil, false
	}
	defer d.sessBusy.Unlock()
	d.smu.Lock()
	s := d.sess
	d.smu.Unlock()
	if s != nil && !s.idle() {
		d.dropSession(s)
		s = nil
	}
	if s == nil {
		d.smu.Lock()
		off := d.noSession
		d.smu.Unlock()
		if off {
			return Result{}, nil, false
		}
		if s, err = d.openSession(ctx); err != nil {
			// The stream of its own gives today's error for the same cause
			// (offline, unauthorized, closed), or works where a session
			// does not.
			return Result{}, nil, false
		}
		// Unused for the idle time, the session closes; the next short
		// command opens one again. A command holds sessBusy: in use.
		opened := s
		s.timer = newIdleTimer(d.c.streamIdle(), func() bool {
			if !d.sessBusy.TryLock() {
				return false
			}
			defer d.sessBusy.Unlock()
			d.dropSession(opened)
			return true
		})
		d.smu.Lock()
		d.sess = s
		d.smu.Unlock()
	}
	res, err, keep := d.sessionRun(ctx, s, cmd)
	if keep {
		s.timer.arm()
	}
	if !keep {
		d.dropSession(s)
		if !s.used && errors.Is(err, ErrTimeout) {
			// A new session's first command that never ended may be a
			// shell that does not run what it reads (every Android shell
			// does; a device that does not would time out each short
			// command): until the device goes away and comes back, short
			// commands take streams of their own.
			d.smu.Lock()
			d.noSession = true
			d.smu.Unlock()
			d.c.log.Info("shell session gave no answer; using a stream per command on this device", "device", d.key)
		}
	}
	s.used = true
	return res, err, true
}

// openSession opens the session stream. ctx bounds the opening only: the
// stream lives until closed, or until the Client closes.
func (d *Device) openSession(ctx context.Context) (*shellSession, error) {
	if d.c.isClosed() {
		return nil, ErrClosed
	}
	sctx, cancel := context.WithCancel(d.c.ctx)
	stop := context.AfterFunc(ctx, cancel)
	hc, err := d.c.openService(sctx, d.endpoint, d.serial, "shell,v2,raw:")
	if err == nil {
		// The shell has not been written to: nothing of it is buffered.
		// A session is long-lived: see package tcpopt for why its reads
		// acknowledge at once (the stderr marker after stdout's).
		hc.br.Reset(tcpopt.Reader{Conn: hc.nc})
	}
	if !stop() || err != nil {
		cancel()
		if hc != nil {
			hc.Close()
		}
		if err == nil {
			err = ctx.Err()
		}
		return nil, err
	}
	return &shellSession{hc: hc, cancel: cancel}, nil
}

// newMarker returns a fresh random marker.
func newMarker() string {
	var rnd [16]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails (Go 1.24+)
	return markerPrefix + hex.EncodeToString(rnd[:])
}

// writeStdin sends data to the shell's stdin in one shell v2 packet.
func writeStdin(hc *hostConn, data string) error {
	pkt := make([]byte, 5, 5+len(data))
	pkt[0] = shellStdin
	binary.LittleEndian.PutUint32(pkt[1:], uint32(len(data)))
	_, err := hc.nc.Write(append(pkt, data...))
	return err
}

// dropSession closes s and forgets it if it is still the device's session.
func (d *Device) dropSession(s *shellSession) {
	d.smu.Lock()
	if d.sess == s {
		d.sess = nil
	}
	d.smu.Unlock()
	s.close()
}

// closeSession closes the device's session, if any (a command running on
// it fails as on a stream the device dropped), and lets the next command
// try a session again.
func (d *Device) closeSession() {
	d.smu.Lock()
	s := d.sess
	d.sess, d.noSession = nil, false
	d.smu.Unlock()
	if s != nil {
		s.close()
	}
}

// sessionRun writes cmd's line and reads until both markers. keep is false
// when the session must not be used again: ctx ended (the stream was
// closed under the command), the stream failed, the shell ended, or the
// output was too large to read to the end.
func (d *Device) sessionRun(ctx context.Context, s *shellSession, cmd string) (res Result, err error, keep bool) {
	mark := newMarker()
	line := "(" + cmd + "\n) </dev/null; echo " + mark + ":$?; echo " + mark + " >&2\n"
	stop := context.AfterFunc(ctx, func() { _ = s.hc.nc.Close() })
	defer stop()
	if err := writeStdin(s.hc, line); err != nil {
		return Result{}, d.sessionError(ctx, s, err), false
	}
	var stdout, stderr bytes.Buffer
	code, outDone, errDone := 0, false, false
	// Through a relay (an endpoint with a dialer, e.g. sshd's forwarding)
	// the adb server's peer is the relay, not us: our quick-ack does not
	// reach it, and sshd delays its acknowledgements on a connection it
	// carries no interactive session on (package tcpopt). The adb server
	// then holds the stderr marker (Nagle) for up to 40 ms after stdout's.
	// An empty stdin packet once stdout's marker is in makes the relay
	// write to the adb server, and that write carries the acknowledgement;
	// adbd takes an empty stdin packet as no input (AOSP
	// packages/modules/adb/daemon/shell_service.cpp, Subprocess::PassInput
	// writes only input_bytes_left_ > 0).
	nudge := d.c.cfg.Dialers[d.endpoint] != nil
	for !outDone || !errDone {
		id, payload, err := readShellPacket(s.hc.br)
		if err != nil {
			return Result{}, d.sessionError(ctx, s, err), false
		}
		switch id {
		case shellStdout:
			stdout.Write(payload)
			if !outDone {
				code, outDone = stdoutEnd(stdout.Bytes(), mark)
				if outDone && !errDone && nudge {
					nudge = false
					if err := writeStdin(s.hc, ""); err != nil {
						return Result{}, d.sessionError(ctx, s, err), false
					}
				}
			}
		case shellStderr:
			stderr.Write(payload)
			if !errDone {
				rest, ok := trailer(stderr.Bytes(), mark)
				errDone = ok && rest == ""
			}
		case shellExit:
			// The shell ended before the command's markers: the command
			// ended it (or a fault killed the shell), and what it printed
			// and the status are the command's, as on a stream of its own.
			code = 0
			if len(payload) > 0 {
				code = int(payload[0])
			}
			return Result{Stdout: cutMarker(stdout.Bytes(), mark), Stderr: cutMarker(stderr.Bytes(), mark), ExitCode: code}, nil, false
		}
		if stdout.Len() > maxOutput || stderr.Len() > maxOutput {
			return Result{}, fmt.Errorf("shell: %w", ErrOutputTooLarge), false
		}
	}
	return Result{Stdout: cutMarker(stdout.Bytes(), mark), Stderr: cutMarker(stderr.Bytes(), mark), ExitCode: code}, nil, true
}

// sessionError classifies a failure on the session as runShellV2 does on
// its own stream: ctx's end first, then a dropped device; a session the
// closing Client cut is ErrClosed.
func (d *Device) sessionError(ctx context.Context, s *shellSession, err error) error {
	if ctx.Err() == nil && d.c.isClosed() {
		return fmt.Errorf("shell: %w", ErrClosed)
	}
	return d.streamError(ctx, s.hc, "shell", err)
}

// trailer finds the marker line that ends b ("MARK" + rest + "\n"), looking
// only at b's tail: it returns rest and whether b ends with such a line.
func trailer(b []byte, mark string) (rest string, ok bool) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return "", false
	}
	from := max(0, len(b)-len(mark)-len(":255\n"))
	i := bytes.LastIndex(b[from:], []byte(mark))
	if i < 0 {
		return "", false
	}
	return string(b[from+i+len(mark) : len(b)-1]), true
}

// stdoutEnd reports whether stdout ends with the status line "MARK:N\n"
// and returns N.
func stdoutEnd(b []byte, mark string) (int, bool) {
	rest, ok := trailer(b, mark)
	if !ok || len(rest) < 2 || rest[0] != ':' {
		return 0, false
	}
	// The shell prints $? in plain decimal: anything else is not the line.
	n, err := strconv.Atoi(rest[1:])
	if err != nil || n < 0 || n > 255 || strconv.Itoa(n) != rest[1:] {
		return 0, false
	}
	return n, true
}

// cutMarker returns b without its trailing marker line, if it has one;
// nothing left is nil, as runShellV2 returns for a stream without output.
func cutMarker(b []byte, mark string) []byte {
	if _, ok := trailer(b, mark); ok {
		b = b[:bytes.LastIndex(b, []byte(mark))]
	}
	if len(b) == 0 {
		return nil
	}
	return b
}
