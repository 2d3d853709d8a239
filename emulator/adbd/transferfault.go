package adbd

import (
	"errors"
	"io"
	"sync/atomic"
	"time"
)

// errTransferFault ends a sync session cut by DropDuringTransfer.
var errTransferFault = errors.New("adbd: link dropped mid-transfer (injected)")

// transferFault is an armed DropDuringTransfer: after bytes of sync
// traffic, the link drops (away 0) or the device vanishes for away.
type transferFault struct {
	after int64
	away  time.Duration
}

// DropDuringTransfer arms a fault for the next file transfer: once after
// bytes of a sync session (adb push, pull, ls; both directions) have
// passed, the device goes offline as a phone whose cable is pulled
// mid-transfer. With away 0 the link drops and the adb server reconnects at
// once (DropLink); otherwise the device is gone for away (Vanish). The
// transfer fails on the host ("adb: error: ... protocol fault" or similar).
// It fires once; after <= 0 disarms it.
func (s *Server) DropDuringTransfer(after int64, away time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.xferFault = nil
	if after > 0 {
		s.xferFault = &transferFault{after: after, away: away}
	}
}

// takeTransferFault returns the armed fault, disarming it.
func (s *Server) takeTransferFault() *transferFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.xferFault
	s.xferFault = nil
	return f
}

// faultyStream counts a sync session's bytes and cuts the link when the
// armed fault's budget is spent.
type faultyStream struct {
	rw    io.ReadWriter
	srv   *Server
	f     *transferFault
	moved atomic.Int64
	fired atomic.Bool
}

func (fs *faultyStream) count(n int) error {
	if fs.moved.Add(int64(n)) < fs.f.after {
		return nil
	}
	if fs.fired.CompareAndSwap(false, true) {
		fs.srv.log.Debug("adbd: injected drop mid-transfer", "after", fs.f.after)
		if fs.f.away > 0 {
			fs.srv.Vanish(fs.f.away)
		} else {
			fs.srv.DropLink()
		}
	}
	return errTransferFault
}

func (fs *faultyStream) Read(p []byte) (int, error) {
	if fs.fired.Load() {
		return 0, errTransferFault
	}
	n, err := fs.rw.Read(p)
	if ferr := fs.count(n); ferr != nil {
		return 0, ferr
	}
	return n, err
}

func (fs *faultyStream) Write(p []byte) (int, error) {
	if fs.fired.Load() {
		return 0, errTransferFault
	}
	if rest := fs.f.after - fs.moved.Load(); int64(len(p)) > rest {
		// Send what fits, then cut: the host sees a partial transfer.
		n, _ := fs.rw.Write(p[:max(rest, 0)])
		fs.count(len(p))
		return n, errTransferFault
	}
	n, err := fs.rw.Write(p)
	if ferr := fs.count(n); ferr != nil {
		return n, ferr
	}
	return n, err
}
