package adbtest_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
	"github.com/adb-connector/adb-connector/emulator"
)

// openService connects to the adb server, switches to serial's transport
// and opens service, as a client library does.
func openService(b *testing.B, env *adbtest.Env, serial, service string) net.Conn {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	b.Cleanup(cancel)
	c, err := adbserver.Dial(ctx, env.ServerAddr)
	if err != nil {
		b.Fatal(err)
	}
	if err := adbserver.Request(c, "host:transport:"+serial); err != nil {
		b.Fatal(err)
	}
	if err := adbserver.Request(c, service); err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkShellRoundTrip measures one `shell,v2,raw:true` through the adb
// server: connect, transport, open, exit packet.
func BenchmarkShellRoundTrip(b *testing.B) {
	env := adbtest.Start(b, adbtest.Options{})
	serial := env.Devices[0].Serial()
	for b.Loop() {
		c := openService(b, env, serial, "shell,v2,raw:true")
		r := bufio.NewReader(c)
		for {
			var h [5]byte
			if _, err := io.ReadFull(r, h[:]); err != nil {
				b.Fatal(err)
			}
			n := binary.LittleEndian.Uint32(h[1:])
			data := make([]byte, n)
			if _, err := io.ReadFull(r, data); err != nil {
				b.Fatal(err)
			}
			if h[0] == 3 {
				if data[0] != 0 {
					b.Fatalf("exit %d", data[0])
				}
				break
			}
		}
		c.Close()
	}
}

// BenchmarkScreencapPNG measures `exec:screencap -p` frames through the
// adb server.
func BenchmarkScreencapPNG(b *testing.B) {
	env := adbtest.Start(b, adbtest.Options{})
	serial := env.Devices[0].Serial()
	var size int64
	for b.Loop() {
		c := openService(b, env, serial, "exec:screencap -p")
		n, err := io.Copy(io.Discard, c)
		c.Close()
		if err != nil || n < 100 {
			b.Fatalf("screencap: %d bytes, %v", n, err)
		}
		size = n
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	b.ReportMetric(float64(size), "png-bytes")
}

// BenchmarkPull measures sync RECV of a 10 MB file through the adb server
// (MB/s is the throughput).
func BenchmarkPull(b *testing.B) {
	env := adbtest.Start(b, adbtest.Options{})
	d := env.Devices[0]
	const size = 10 << 20
	const path = "/data/local/tmp/bench.bin"
	if err := d.Android().Files().WriteFile(path, make([]byte, size), 0o644, time.Now()); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	for b.Loop() {
		c := openService(b, env, d.Serial(), "sync:")
		req := binary.LittleEndian.AppendUint32([]byte("RECV"), uint32(len(path)))
		if _, err := c.Write(append(req, path...)); err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReaderSize(c, 128<<10)
		got := 0
		for {
			var h [8]byte
			if _, err := io.ReadFull(r, h[:]); err != nil {
				b.Fatal(err)
			}
			n := binary.LittleEndian.Uint32(h[4:])
			if string(h[:4]) == "DONE" {
				break
			}
			if string(h[:4]) != "DATA" {
				b.Fatalf("sync reply %q", h[:4])
			}
			if _, err := r.Discard(int(n)); err != nil {
				b.Fatal(err)
			}
			got += int(n)
		}
		c.Write([]byte("QUIT\x00\x00\x00\x00"))
		c.Close()
		if got != size {
			b.Fatalf("pulled %d bytes", got)
		}
	}
}

// BenchmarkIdleDeviceMemory reports the memory (Go heap and goroutine
// stacks in use, after GC) each idle virtual device takes while connected
// to the adb server, over 32 devices. Target: under 20 MB each.
func BenchmarkIdleDeviceMemory(b *testing.B) {
	const n = 32
	for b.Loop() {
		env := adbtest.Start(b, adbtest.Options{Devices: -1})
		before := heap()
		devs := make([]*emulator.Device, n)
		for i := range devs {
			d, err := emulator.Start(context.Background(), emulator.Options{})
			if err != nil {
				b.Fatal(err)
			}
			devs[i] = d
			env.Connect(d)
		}
		after := heap()
		b.ReportMetric(float64(after-before)/n/(1<<20), "MB/device")
		for _, d := range devs {
			d.Close()
		}
		runtime.KeepAlive(devs)
	}
}

func heap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}
