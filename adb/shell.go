package adb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// Default timeouts applied when the caller's context has no deadline.
const (
	// DefaultShellTimeout bounds Shell.
	DefaultShellTimeout = 30 * time.Second
	// DefaultExecTimeout bounds ExecOut.
	DefaultExecTimeout = 60 * time.Second
)

// maxOutput caps each output stream of one command (stdout, stderr, exec).
const maxOutput = 64 << 20

// maxShellPacket caps one shell v2 packet (adbd sends at most its max
// payload, 256 KiB or less).
const maxShellPacket = 4 << 20

// ErrOutputTooLarge is returned when a command prints more than 64 MiB.
var ErrOutputTooLarge = errors.New("adb: command output too large")

// Result is the outcome of a shell command.
type Result struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
}

// Shell packet ids of the shell v2 protocol (AOSP adb shell_protocol.h).
const (
	shellStdin      = 0
	shellStdout     = 1
	shellStderr     = 2
	shellExit       = 3
	shellCloseStdin = 4
)

// QuoteArgs builds a device shell command line from argv, quoting each
// argument for Android's mksh (mvdan.cc/sh syntax.Quote), so user text is
// never interpreted by the device shell.
func QuoteArgs(argv ...string) (string, error) {
	if len(argv) == 0 {
		return "", errors.New("adb: empty command")
	}
	parts := make([]string, len(argv))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangMirBSDKorn)
		if err != nil {
			return "", fmt.Errorf("adb: cannot quote argument %d: %w", i, err)
		}
		parts[i] = q
	}
	return strings.Join(parts, " "), nil
}

// Shell runs argv (quoted, never concatenated) through the shell v2 service
// and returns stdout, stderr and the exit code. A non-zero exit returns the
// Result together with a *ExitError. Default timeout: DefaultShellTimeout.
// When ctx ends the stream is closed at once (ErrTimeout on deadline); a
// device dropping mid-command yields ErrDeviceOffline, never partial output
// with a nil error. Safe for concurrent use (counted as a read, and as an
// action by ActionSeq: the command may change what the phone shows).
func (d *Device) Shell(ctx context.Context, argv ...string) (Result, error) {
	cmd, err := QuoteArgs(argv...)
	if err != nil {
		return Result{}, err
	}
	// Any command may act on the phone.
	d.actions.Add(1)
	return d.shortScript(ctx, cmd)
}

// shellScript runs a trusted command line (built from constants and
// QuoteArgs output) under the limiter.
func (d *Device) shellScript(ctx context.Context, kind opKind, cmd string) (Result, error) {
	return d.shellScriptFor(ctx, kind, 0, cmd)
}

// shellScriptFor is shellScript for a command that takes need on the device
// (see limiter.acquireFor).
func (d *Device) shellScriptFor(ctx context.Context, kind opKind, need time.Duration, cmd string) (Result, error) {
	if kind == opInput {
		d.actions.Add(1)
	}
	return d.limitedShell(ctx, kind, need, cmd, d.runShellV2)
}

// shortScript is shellScript (a read) for a short command: it runs on the
// device's shell session when it can (shortShell).
func (d *Device) shortScript(ctx context.Context, cmd string) (Result, error) {
	return d.limitedShell(ctx, opRead, 0, cmd, d.shortShell)
}

// limitedShell runs cmd with run under the limiter and turns a non-zero
// exit into an *ExitError.
func (d *Device) limitedShell(ctx context.Context, kind opKind, need time.Duration, cmd string, run func(context.Context, string) (Result, error)) (Result, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultShellTimeout)
	defer cancel()
	release, err := d.lim.acquireFor(ctx, kind, need)
	if err != nil {
		return Result{}, fmt.Errorf("shell: %w", err)
	}
	defer release()
	return checkExit(run(ctx, cmd))
}

// runChecked runs cmd on a stream of its own; its caller holds a limiter
// slot. A non-zero exit is an *ExitError beside the Result.
func (d *Device) runChecked(ctx context.Context, cmd string) (Result, error) {
	return checkExit(d.runShellV2(ctx, cmd))
}

// checkExit turns a non-zero exit into an *ExitError beside the Result.
func checkExit(res Result, err error) (Result, error) {
	if err != nil {
		return res, err
	}
	if res.ExitCode != 0 {
		return res, &ExitError{Code: res.ExitCode, Stderr: res.Stderr}
	}
	return res, nil
}

// runShellV2 opens shell,v2,raw:cmd and collects the packets until the exit
// packet.
func (d *Device) runShellV2(ctx context.Context, cmd string) (Result, error) {
	hc, err := d.open(ctx, "shell,v2,raw:"+cmd)
	if err != nil {
		return Result{}, fmt.Errorf("shell: %w", err)
	}
	defer hc.Close()
	// No stdin: tell the device so commands reading it see EOF.
	if _, err := hc.nc.Write([]byte{shellCloseStdin, 0, 0, 0, 0}); err != nil {
		return Result{}, d.streamError(ctx, hc, "shell", err)
	}
	var stdout, stderr bytes.Buffer
	for {
		id, payload, err := readShellPacket(hc.br)
		if err != nil {
			return Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}, d.streamError(ctx, hc, "shell", err)
		}
		switch id {
		case shellStdout:
			stdout.Write(payload)
		case shellStderr:
			stderr.Write(payload)
		case shellExit:
			code := 0
			if len(payload) > 0 {
				code = int(payload[0])
			}
			return Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: code}, nil
		}
		if stdout.Len() > maxOutput || stderr.Len() > maxOutput {
			return Result{}, fmt.Errorf("shell: %w", ErrOutputTooLarge)
		}
	}
}

// readShellPacket decodes one shell v2 packet: id byte, little-endian
// uint32 length, payload.
func readShellPacket(r io.Reader) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[1:])
	if n > maxShellPacket {
		return 0, nil, fmt.Errorf("%w: shell packet of %d bytes", ErrProtocol, n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return hdr[0], buf, nil
}

// ExecOut runs argv through the exec service and returns its raw,
// binary-safe stdout (no pty, no stderr, no exit code). Default timeout:
// DefaultExecTimeout. As the exec stream has no end marker, the device's
// state is checked when the stream ends: a device that dropped gives
// ErrDeviceOffline, not the partial bytes. Safe for concurrent use.
func (d *Device) ExecOut(ctx context.Context, argv ...string) ([]byte, error) {
	cmd, err := QuoteArgs(argv...)
	if err != nil {
		return nil, err
	}
	return d.execScript(ctx, opRead, cmd, nil)
}

// execScript runs cmd through the exec service. The exec stream has no end
// marker, so a stream that ends is checked against the adb server's device
// list (one more round trip) unless whole, when given, recognizes the
// output as complete by its own framing (a PNG that ends in IEND): a device
// that dropped cannot have sent that.
func (d *Device) execScript(ctx context.Context, kind opKind, cmd string, whole func([]byte) bool) ([]byte, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultExecTimeout)
	defer cancel()
	release, err := d.lim.acquire(ctx, kind)
	if err != nil {
		return nil, fmt.Errorf("exec: %w", err)
	}
	defer release()
	hc, err := d.open(ctx, "exec:"+cmd)
	if err != nil {
		return nil, fmt.Errorf("exec: %w", err)
	}
	defer hc.Close()
	return d.readExec(ctx, hc, whole)
}

// readExec reads an exec stream to its end (see execScript).
func (d *Device) readExec(ctx context.Context, hc *hostConn, whole func([]byte) bool) ([]byte, error) {
	var buf bytes.Buffer
	_, err := io.Copy(&buf, io.LimitReader(hc.br, maxOutput+1))
	if err != nil {
		return nil, d.streamError(ctx, hc, "exec", err)
	}
	if buf.Len() > maxOutput {
		return nil, fmt.Errorf("exec: %w", ErrOutputTooLarge)
	}
	if ctx.Err() != nil {
		return nil, ctxError(ctx, "exec", ctx.Err())
	}
	if whole != nil && whole(buf.Bytes()) {
		return buf.Bytes(), nil
	}
	if err := d.checkOnline(ctx, hc.tid); err != nil {
		return nil, fmt.Errorf("exec: %w", err)
	}
	return buf.Bytes(), nil
}

// streamError classifies a failure while reading a device stream: context
// end first, then a dropped device.
func (d *Device) streamError(ctx context.Context, hc *hostConn, op string, err error) error {
	if cerr := ctxError(ctx, op, err); cerr != err {
		return cerr
	}
	if isDrop(err) {
		if serr := d.checkOnline(context.WithoutCancel(ctx), hc.tid); serr != nil {
			return fmt.Errorf("%s: stream ended early: %w", op, serr)
		}
		return fmt.Errorf("%s: stream ended early: %w", op, ErrDeviceOffline)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// checkOnline asks the adb server whether the device is still the one a
// stream was opened on: listed, in state "device", and (when tid is known)
// on the same transport, i.e. not dropped and reconnected meanwhile. nil
// means yes.
func (d *Device) checkOnline(ctx context.Context, tid int64) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	list, err := d.c.endpointDevices(ctx, d.endpoint)
	if err != nil {
		return err
	}
	for _, info := range list {
		if info.Serial != d.serial {
			continue
		}
		switch {
		case info.State == StateUnauthorized || info.State == StateAuthorizing:
			return ErrUnauthorized
		case info.State != StateDevice:
			return fmt.Errorf("%w: state %s", ErrDeviceOffline, info.State)
		case tid != 0 && info.TransportID != 0 && info.TransportID != tid:
			return fmt.Errorf("%w: device reconnected during the command", ErrDeviceOffline)
		}
		return nil
	}
	return &DeviceError{Key: d.key, Op: "check online", Err: fmt.Errorf("%w: no longer listed", ErrDeviceOffline)}
}
