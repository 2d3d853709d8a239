package files

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DownloadWriteTimeout bounds each write of a download (one chunk of up to
// 32 KiB). The server's WriteTimeout would cut a large file, or a slow but
// steady client, mid-body; instead each chunk moves the connection's write
// deadline this far ahead, so only a client that stops reading is dropped.
const DownloadWriteTimeout = 30 * time.Second

// ChannelHeader names the channel a download is for. When a request carries
// it, a file of any other channel is refused with 403.
const ChannelHeader = "X-XAgent-Connector-Channel-ID"

// Handler serves GET and HEAD /files/refs/{file_ref} (protocol §5.2): the raw
// bytes with Range support (at most 16 ranges, coalesced; never a body
// larger than the file), Content-Type, an attachment Content-Disposition,
// Cache-Control: no-store and X-Content-Type-Options: nosniff. Unknown,
// expired and malformed refs are 404 (a malformed ref is rejected before any
// database or file access), a ref of another channel 403, other methods 405.
//
// Mount it with [RoutePattern]; the ref comes from r.PathValue("file_ref"),
// or, when the handler is not behind a pattern, from the URL path after
// "/files/refs/". The handler takes no API key: the ref is the credential
// (unguessable, short-lived), as §3 asks for download URLs.
func (s *Store) Handler() http.Handler {
	return http.HandlerFunc(s.serveHTTP)
}

func (s *Store) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		s.fail(w, http.StatusMethodNotAllowed, resultMethodNotAllowed)
		return
	}
	ref := refFromRequest(r)
	if !ValidRef(ref) {
		s.log.Debug("file download: malformed ref", "len", len(ref))
		s.fail(w, http.StatusNotFound, resultNotFound)
		return
	}
	meta, f, err := s.Get(r.Context(), ref, r.Header.Get(ChannelHeader))
	switch {
	case errors.Is(err, ErrNotFound):
		s.log.Debug("file download: not found", "file_ref", redactRef(ref))
		s.fail(w, http.StatusNotFound, resultNotFound)
		return
	case errors.Is(err, ErrForbidden):
		s.log.Debug("file download: other channel", "file_ref", redactRef(ref))
		s.fail(w, http.StatusForbidden, resultForbidden)
		return
	case err != nil:
		s.log.Error("file download", "file_ref", redactRef(ref), "err", err)
		s.fail(w, http.StatusInternalServerError, resultError)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		s.log.Error("file download", "file_ref", redactRef(ref), "err", err)
		s.fail(w, http.StatusInternalServerError, resultError)
		return
	}
	h.Set("Content-Type", meta.MIMEType)
	h.Set("Content-Disposition", contentDisposition(meta.Filename))
	s.metrics.downloads.WithLabelValues(resultOK).Inc()
	s.log.Debug("file download", "file_ref", redactRef(ref), "range", r.Header.Get("Range") != "")
	http.ServeContent(&deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w)},
		withRange(r, fi.Size(), meta.MIMEType), "", fi.ModTime(), f)
}

// withRange returns r with its Range header replaced by the normalized form
// parseRange decides, so that http.ServeContent, which still evaluates the
// preconditions and If-Range first (RFC 9110 §13.2.2), only ever sees a few
// merged, absolute ranges:
//   - ignored: no Range, the whole file (200);
//   - rejected: a range starting at the end of the file, which ServeContent
//     answers 416 with Content-Range: bytes */size (RFC 9110 §15.5.17);
//   - ranges: the coalesced list, unless a multipart/byteranges body would
//     be larger than the file itself. Then the whole file is cheaper for
//     both sides, and RFC 9110 §14.2 lets a server ignore Range: this bounds
//     any response to the size of the file, whatever the header says.
func withRange(r *http.Request, size int64, contentType string) *http.Request {
	h := r.Header.Get("Range")
	if h == "" {
		return r
	}
	ranges, outcome := parseRange(h, size)
	r = r.Clone(r.Context()) // a handler must not modify the request it is given
	switch {
	case outcome == rangeReject:
		r.Header.Set("Range", "bytes="+strconv.FormatInt(size, 10)+"-")
	case outcome == rangeServe && (len(ranges) == 1 || multipartSize(ranges, contentType, size) <= size):
		r.Header.Set("Range", rangeHeader(ranges))
	default:
		r.Header.Del("Range")
	}
	return r
}

// deadlineWriter extends the connection's write deadline before each write
// by DownloadWriteTimeout (see there). It hides the ResponseWriter's
// ReadFrom, so a download goes out in io.Copy's 32 KiB chunks, each with
// its own deadline, rather than in one sendfile under one deadline.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	// An error means the writer has no deadline to extend (a test
	// recorder): there is none to cut the download either.
	_ = w.rc.SetWriteDeadline(time.Now().Add(DownloadWriteTimeout))
	return w.ResponseWriter.Write(p)
}

func (w *deadlineWriter) WriteHeader(code int) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(DownloadWriteTimeout))
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// refFromRequest returns the {file_ref} path value, or the path after
// DownloadPrefix for a handler mounted without a pattern.
func refFromRequest(r *http.Request) string {
	if v := r.PathValue("file_ref"); v != "" {
		return v
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, DownloadPrefix); ok {
		return rest
	}
	return ""
}

func (s *Store) fail(w http.ResponseWriter, code int, result string) {
	s.metrics.downloads.WithLabelValues(result).Inc()
	http.Error(w, http.StatusText(code), code)
}
