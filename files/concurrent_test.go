package files

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestConcurrentPutGet(t *testing.T) {
	t.Parallel()
	const workers, rounds, size = 8, 25, 1000
	e := newEnv(t, Config{MaxTotalBytes: 20 * size}) // forces evictions
	srv := newServer(t, e.st)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			channel := fmt.Sprintf("ch-%d", w)
			for i := range rounds {
				data := bytes.Repeat([]byte{byte(w), byte(i)}, size/2)
				ref, err := e.st.PutBytes(ctx, channel, Meta{MIMEType: "application/octet-stream"}, data)
				if err != nil {
					errs <- err
					return
				}
				status, body := download(t, srv.URL+ref.DownloadURL, channel)
				switch {
				case status == 404: // evicted by another worker: allowed
				case status != 200 || !bytes.Equal(body, data):
					errs <- fmt.Errorf("worker %d round %d: status %d, %d bytes", w, i, status, len(body))
					return
				}
				if i%5 == 0 {
					if err := e.st.Sweep(ctx); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Bookkeeping matches the disk.
	var onDisk, filesOnDisk int64
	des, _ := os.ReadDir(e.st.cfg.Dir)
	for _, de := range des {
		if ValidRef(de.Name()) {
			fi, _ := de.Info()
			onDisk += fi.Size()
			filesOnDisk++
		}
	}
	if got := testutil.ToFloat64(e.st.metrics.bytes); got != float64(onDisk) || onDisk > 20*size {
		t.Fatalf("stored_bytes = %v, on disk %d, cap %d", got, onDisk, 20*size)
	}
	if got := testutil.ToFloat64(e.st.metrics.files); got != float64(filesOnDisk) {
		t.Fatalf("stored = %v, files on disk %d", got, filesOnDisk)
	}
}

func TestMetricsLint(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	e.put("ch", []byte("x"), Meta{})
	reg := prometheus.NewPedanticRegistry()
	for _, c := range e.st.Collectors() {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("lint problems: %+v", problems)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	want := []string{
		"adb_connector_files_downloads_total",
		"adb_connector_files_evictions_total",
		"adb_connector_files_expired_total",
		"adb_connector_files_stored",
		"adb_connector_files_stored_bytes",
	}
	slices.Sort(names)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("metric names (-want +got):\n%s", diff)
	}
}
