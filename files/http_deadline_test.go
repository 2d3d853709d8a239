package files

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestDownloadOutlivesServerWriteTimeout: a download larger than the
// socket buffers, read by a client that pauses past the server's
// WriteTimeout, still arrives whole: each chunk extends the write deadline
// (DownloadWriteTimeout) instead of the one set when the request was read.
// The pause ends when a keep-alive connection opened after the download
// started is closed by IdleTimeout, longer than WriteTimeout.
func TestDownloadOutlivesServerWriteTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	data := bytes.Repeat([]byte("0123456789abcdef"), 2<<20) // 32 MiB: more than loopback buffers hold
	ref := e.put("ch-1", data, Meta{MIMEType: "application/octet-stream"}).FileRef

	mux := http.NewServeMux()
	mux.Handle(RoutePattern, e.st.Handler())
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) {})
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.WriteTimeout = 20 * time.Millisecond
	srv.Config.IdleTimeout = 50 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()

	dl := rawConn(t, addr)
	fmt.Fprintf(dl, "GET %s%s HTTP/1.1\r\nHost: test\r\n\r\n", DownloadPrefix, ref)
	resp, err := http.ReadResponse(dl.br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("download: %v %v", resp, err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadFull(resp.Body, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}

	ka := rawConn(t, addr)
	fmt.Fprintf(ka, "GET /ok HTTP/1.1\r\nHost: test\r\n\r\n")
	if r, err := http.ReadResponse(ka.br, nil); err != nil {
		t.Fatal(err)
	} else {
		r.Body.Close()
	}
	if _, err := ka.br.Peek(1); err == nil || isTimeout(err) { // blocks until IdleTimeout closes it
		t.Fatalf("keep-alive connection not closed by the server: %v", err)
	}

	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("download cut after %d bytes: %v", 1+len(rest), err)
	}
	if !bytes.Equal(rest, data[1:]) {
		t.Fatalf("download: %d bytes differ from the %d stored", 1+len(rest), len(data))
	}
}

type bufConn struct {
	net.Conn
	br *bufio.Reader
}

// rawConn dials addr; every read and write is bounded by a hang guard.
func rawConn(t *testing.T, addr string) *bufConn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	return &bufConn{Conn: nc, br: bufio.NewReader(nc)}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
