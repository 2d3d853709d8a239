package files

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestRouteMethodNotAllowed mounts the handler the way serve_device does,
// mux.Handle(RoutePattern, ...) on an http.ServeMux as connector.Server does, and checks that
// the handler itself answers other methods: a method-qualified pattern would
// let ServeMux answer 405 before the handler runs, so
// downloads_total{result="method_not_allowed"} would never count.
func TestRouteMethodNotAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	ref := e.put("ch", []byte("payload"), Meta{}).FileRef
	// connector.Server.Handle mounts on an http.ServeMux; files may not
	// import connector, so the same mux is used directly.
	mux := http.NewServeMux()
	mux.Handle(RoutePattern, e.st.Handler())
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)

	methods := []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch}
	for _, m := range methods {
		resp, _ := do(t, m, ts.URL+DownloadPrefix+ref, nil)
		if resp == nil {
			continue
		}
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: status %d, want 405", m, resp.StatusCode)
		}
		if got := resp.Header.Get("Allow"); got != "GET, HEAD" {
			t.Errorf("%s: Allow = %q, want %q", m, got, "GET, HEAD")
		}
		if got := resp.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s: Cache-Control = %q, want no-store", m, got)
		}
	}
	got := testutil.ToFloat64(e.st.metrics.downloads.WithLabelValues(resultMethodNotAllowed))
	if got != float64(len(methods)) {
		t.Errorf("downloads_total{result=%q} = %v, want %d", resultMethodNotAllowed, got, len(methods))
	}
	// GET and HEAD still reach the file through the same mount.
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		if resp, _ := do(t, m, ts.URL+DownloadPrefix+ref, nil); resp != nil && resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d, want 200", m, resp.StatusCode)
		}
	}
}
