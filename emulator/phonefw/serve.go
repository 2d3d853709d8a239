package phonefw

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// The side channel between the fake framework (com.adbconnector.phonefw.
// Phone) and a Phone: a request is u32 count then count strings (u32 n, n
// bytes); an answer is u8 status (0 ok, 1 error) and one blob.
const (
	maxArgs = 64
	maxArg  = 16 << 20
)

// session serves one framework connection and remembers whether the
// helper holds the UiAutomation slot, to free it when the VM ends.
type session struct {
	p         Phone
	connected bool
}

func (s *session) serve(ctx context.Context, c net.Conn) error {
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		args, err := readRequest(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		out, err := s.handle(ctx, args)
		status := byte(0)
		if err != nil {
			status, out = 1, []byte(err.Error())
		}
		w.WriteByte(status)
		binary.Write(w, binary.BigEndian, uint32(len(out)))
		w.Write(out)
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

func readRequest(r io.Reader) ([]string, error) {
	var n uint32
	if err := binary.Read(r, binary.BigEndian, &n); err != nil {
		return nil, err
	}
	if n == 0 || n > maxArgs {
		return nil, fmt.Errorf("phonefw: %d arguments", n)
	}
	args := make([]string, n)
	for i := range args {
		var l uint32
		if err := binary.Read(r, binary.BigEndian, &l); err != nil {
			return nil, err
		}
		if l > maxArg {
			return nil, fmt.Errorf("phonefw: argument of %d bytes", l)
		}
		b := make([]byte, l)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		args[i] = string(b)
	}
	return args, nil
}

func yes(b bool) []byte {
	if b {
		return []byte("1")
	}
	return []byte("0")
}

func (s *session) handle(ctx context.Context, a []string) ([]byte, error) {
	arg := func(i int) string {
		if i < len(a) {
			return a[i]
		}
		return ""
	}
	num := func(i int) int64 {
		v, _ := strconv.ParseInt(arg(i), 10, 64)
		return v
	}
	switch a[0] {
	case "connect":
		if err := s.p.Connect(int(num(1))); err != nil {
			return nil, err
		}
		s.connected = true
		return nil, nil
	case "disconnect":
		if s.connected {
			s.connected = false
			s.p.Disconnect()
		}
		return nil, nil
	case "idle":
		return yes(s.p.WaitIdle(ctx, time.Duration(num(1))*time.Millisecond, time.Duration(num(2))*time.Millisecond)), nil
	case "display":
		w, h, r := s.p.Display()
		return fmt.Appendf(nil, "%d %d %d", w, h, r), nil
	case "dump":
		return s.p.Dump(), nil
	case "screenshot":
		png := s.p.Screenshot(ctx)
		if png == nil {
			return nil, errors.New("no frame")
		}
		return png, nil
	case "motion":
		m := Motion{Action: int(num(1)), Source: int(num(2)), DownTime: num(3), Event: num(4)}
		for i := 5; i+1 < len(a); i += 2 {
			x, _ := strconv.ParseFloat(a[i], 64)
			y, _ := strconv.ParseFloat(a[i+1], 64)
			m.X, m.Y = append(m.X, x), append(m.Y, y)
		}
		return yes(s.p.Motion(ctx, m)), nil
	case "key":
		k := Key{Action: int(num(1)), Code: int(num(2)), Repeat: int(num(3)), Flags: int(num(4)), DownTime: num(5), Event: num(6)}
		return yes(s.p.Key(ctx, k)), nil
	case "action":
		var path []int
		for _, p := range strings.Split(arg(1), "/") {
			v, err := strconv.Atoi(p)
			if err != nil {
				return nil, fmt.Errorf("bad node path %q", arg(1))
			}
			path = append(path, v)
		}
		return yes(s.p.Action(path, int(num(2)), arg(3), arg(4))), nil
	case "encode":
		s.p.Encode(ctx, arg(1), int(num(2)), int(num(3)))
		return nil, nil
	case "clipget":
		return []byte(s.p.ClipGet()), nil
	case "clipset":
		s.p.ClipSet(arg(1))
		return nil, nil
	}
	return nil, fmt.Errorf("unknown request %q", a[0])
}
