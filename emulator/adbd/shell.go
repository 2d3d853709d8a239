package adbd

import (
	"context"
	"encoding/binary"
	"io"
	"strings"
	"sync"
)

// Shell protocol v2 packet ids (AOSP shell_protocol.h): each packet is a
// 1-byte id, a 4-byte little-endian length and the data.
const (
	shellStdin      = 0
	shellStdout     = 1
	shellStderr     = 2
	shellExit       = 3
	shellCloseStdin = 4
	shellWindowSize = 5

	shellHeaderSize = 5
	// shellMaxPacket bounds one packet's data, for hosts with small buffers.
	shellMaxPacket = 64 << 10
)

// shellRequest is a parsed "shell[,arg...]:command" service name.
type shellRequest struct {
	v2      bool   // "v2": shell protocol packets
	pty     bool   // "pty" (default for an empty command) vs "raw"
	term    string // TERM=...
	command string
}

// parseShellService splits "shell,v2,TERM=xterm,raw:ls -l" into its parts.
// Legacy clients send "shell:cmd".
func parseShellService(name string) shellRequest {
	rest := strings.TrimPrefix(name, "shell")
	args, cmd, _ := strings.Cut(rest, ":")
	r := shellRequest{command: cmd, pty: cmd == ""}
	for _, a := range strings.Split(strings.TrimPrefix(args, ","), ",") {
		switch {
		case a == "v2":
			r.v2 = true
		case a == "raw":
			r.pty = false
		case a == "pty":
			r.pty = true
		case strings.HasPrefix(a, "TERM="):
			r.term = strings.TrimPrefix(a, "TERM=")
		}
	}
	return r
}

// serveShell runs "shell:" (raw: stdout and stderr merged, no exit status)
// and "shell,v2,...:" (packets with separate stdout, stderr and exit).
func serveShell(ctx context.Context, srv *Server, st *stream, name string) {
	req := parseShellService(name)
	if req.pty && strings.TrimSpace(req.command) == "" {
		// An interactive shell on a terminal (prompt, echo, line editing)
		// is not modelled; a shell without a command on a raw stream is
		// (Backend.Run).
		refusePty(st, req.v2)
		return
	}
	if !req.v2 {
		runRaw(ctx, srv, st, req.command, st, st)
		return
	}
	runWithStdin(st, copyShellStdin, func(stdin io.Reader) {
		out := newCoalescer(&packetWriter{st: st, id: shellStdout}, shellMaxPacket)
		errw := newCoalescer(&packetWriter{st: st, id: shellStderr}, shellMaxPacket)
		code := srv.backend.Run(ctx, req.command, stdin, out, errw)
		out.Close()
		errw.Close()
		if ctx.Err() == nil {
			st.Write(shellPacket(shellExit, []byte{byte(code)}))
		}
	})
}

// ptyRefusal is what a pty shell without a command gets.
const ptyRefusal = "interactive shell on a terminal not supported; use a raw shell (adb shell -T)\n"

// refusePty answers a pty shell request without a command: the message
// and status 1 (on a pty, stderr is the terminal too).
func refusePty(st *stream, v2 bool) {
	if !v2 {
		io.WriteString(st, ptyRefusal)
		return
	}
	st.Write(shellPacket(shellStdout, []byte(ptyRefusal)))
	st.Write(shellPacket(shellExit, []byte{1}))
}

// serveExec runs "exec:cmd": raw and binary safe, stdout only (what
// `adb exec-out` uses).
func serveExec(ctx context.Context, srv *Server, st *stream, name string) {
	runRaw(ctx, srv, st, strings.TrimPrefix(name, "exec:"), st, io.Discard)
}

// runRaw runs cmdline with the stream as raw stdin and the given outputs.
func runRaw(ctx context.Context, srv *Server, st *stream, cmdline string, stdout, stderr io.Writer) {
	copyRaw := func(w io.Writer, r io.Reader) error {
		_, err := io.Copy(w, r)
		return err
	}
	runWithStdin(st, copyRaw, func(stdin io.Reader) {
		out := newCoalescer(stdout, shellMaxPacket)
		errw := io.Writer(out)
		if stderr != stdout {
			errw = stderr
		}
		srv.backend.Run(ctx, cmdline, stdin, out, errw)
		out.Close()
	})
}

// runWithStdin calls run with a stdin that feed fills from the stream in
// its own goroutine; then it closes the stream and waits for the feeder.
func runWithStdin(st *stream, feed func(w io.Writer, r io.Reader) error, run func(stdin io.Reader)) {
	pr, pw := io.Pipe()
	var wg sync.WaitGroup
	wg.Go(func() { pw.CloseWithError(feed(pw, st)) })
	run(pr)
	st.Close()
	pr.Close()
	wg.Wait()
}

// copyShellStdin decodes shell v2 packets from the host, copying stdin data
// to w until close-stdin or the end of the stream. Window-size and unknown
// packets are ignored.
func copyShellStdin(w io.Writer, r io.Reader) error {
	for {
		id, data, err := readShellPacket(r, shellMaxPacket*16)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch id {
		case shellStdin:
			if len(data) == 0 {
				// No input, as adbd takes it (AOSP shell_service.cpp,
				// Subprocess::PassInput writes only input_bytes_left_ > 0).
				continue
			}
			if _, err := w.Write(data); err != nil {
				// The command stopped reading; keep draining so the
				// host's packets are still acknowledged.
				w = io.Discard
			}
		case shellCloseStdin:
			return nil
		}
	}
}

// readShellPacket reads one shell v2 packet; lengths above max are refused.
func readShellPacket(r io.Reader, max uint32) (byte, []byte, error) {
	var h [shellHeaderSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint32(h[1:])
	if n > max {
		return 0, nil, ErrProtocol
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return 0, nil, io.ErrUnexpectedEOF
	}
	return h[0], data, nil
}

// shellPacket encodes one shell v2 packet.
func shellPacket(id byte, data []byte) []byte {
	b := make([]byte, shellHeaderSize, shellHeaderSize+len(data))
	b[0] = id
	binary.LittleEndian.PutUint32(b[1:], uint32(len(data)))
	return append(b, data...)
}

// packetWriter writes stdout or stderr as shell v2 packets; each packet goes
// to the stream in one Write, so stdout and stderr may be written from
// different goroutines.
type packetWriter struct {
	st *stream
	id byte
}

func (w *packetWriter) Write(p []byte) (int, error) {
	// One packet per WRTE when the host's payload limit allows; with a
	// tinier limit, stream.Write splits packets across WRTEs.
	limit := shellMaxPacket
	if w.st.maxData > shellHeaderSize {
		limit = min(limit, w.st.maxData-shellHeaderSize)
	}
	written := 0
	for len(p) > 0 {
		n := min(len(p), limit)
		if _, err := w.st.Write(shellPacket(w.id, p[:n])); err != nil {
			return written, err
		}
		written += n
		p = p[n:]
	}
	return written, nil
}
