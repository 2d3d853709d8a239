package shell

import (
	"io"
	"os"
)

// Tee is toybox tee (toys/posix/tee.c): each FILE opened read-write
// (created, truncated unless -a; one that cannot be opened is reported
// and skipped), then every read of stdin (at most 4096 bytes, toybuf) is
// written to each file and then to stdout. The touch path relies on that
// order: the stdout copy tells the host the node has the events.
func Tee(c *Ctx) int {
	a, st, ok := c.ToyParse(ToySpec{Opts: "ia", Max: -1})
	if !ok {
		return st
	}
	flag := os.O_RDWR | os.O_CREATE | os.O_TRUNC
	if a.Has('a') {
		flag = os.O_RDWR | os.O_CREATE | os.O_APPEND
	}
	status := 0
	var outs []io.WriteCloser
	for _, name := range a.Operands {
		if name == "-" {
			continue
		}
		f, err := c.Phone.OpenShellFile(c.Context, c.Abs(name), flag)
		if err != nil {
			c.ToyPerror(err, "%s", name)
			status = 1
			continue
		}
		outs = append(outs, f)
	}
	defer func() {
		for _, f := range outs {
			f.Close()
		}
	}()
	buf := make([]byte, 4096)
	for {
		n, err := c.Stdin.Read(buf)
		if n > 0 {
			for _, f := range outs {
				if w, err := f.Write(buf[:n]); err != nil || w != n {
					status = 1
				}
			}
			if _, err := c.Stdout.Write(buf[:n]); err != nil {
				status = 1
			}
		}
		if err != nil {
			return status
		}
	}
}
