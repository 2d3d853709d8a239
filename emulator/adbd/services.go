package adbd

import (
	"context"
	"io"
	"strings"
)

// service runs one opened stream; name is the full service string. The
// stream is closed (CLSE) when it returns.
type service func(ctx context.Context, srv *Server, st *stream, name string)

// services is the one dispatch table from service name prefix to handler
// (AOSP SERVICES.TXT, device side). Names not listed are refused with CLSE,
// as adbd refuses unknown services.
var services = []struct {
	prefix string
	run    service
}{
	{"shell:", serveShell},
	{"shell,", serveShell},
	{"exec:", serveExec},
	{"sync:", serveSync},
	{"root:", replyText("adbd cannot run as root in production builds\n")},
	{"unroot:", replyText("adbd not running as root\n")},
	{"remount:", replyText("Not running as root. Try \"adb root\" first.\n")},
	{"disable-verity:", replyText("verity cannot be disabled/enabled - USER build\n")},
	{"enable-verity:", replyText("verity cannot be disabled/enabled - USER build\n")},
}

// lookupService returns the handler for a service name, or nil.
func lookupService(name string) service {
	for _, s := range services {
		if strings.HasPrefix(name, s.prefix) {
			return s.run
		}
	}
	return nil
}

// redactService keeps only the service kind for logs: command lines may
// carry typed text or other secrets.
func redactService(name string) string {
	if i := strings.IndexAny(name, ":,"); i >= 0 {
		return name[:i+1]
	}
	if len(name) > 16 {
		return name[:16] + "..."
	}
	return name
}

// replyText is a service that writes a fixed message and closes, as adbd
// does for root/unroot/remount on an unrooted production device.
func replyText(text string) service {
	return func(_ context.Context, _ *Server, st *stream, _ string) {
		io.WriteString(st, text)
	}
}
