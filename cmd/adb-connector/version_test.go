package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/adb-connector/adb-connector/internal/buildinfo"
)

func TestVersion(t *testing.T) {
	for _, tc := range []struct{ tag, want string }{
		{"v0.3.0", "adb-connector 1a2b3c4 (tag v0.3.0, rev 1a2b3c4, built 2612031015)\n"},
		{"", "adb-connector 1a2b3c4 (tag none, rev 1a2b3c4, built 2612031015)\n"},
	} {
		info := buildinfo.Info{Version: "1a2b3c4", GitTag: tc.tag, GitRev: "1a2b3c4", BuildTime: "2612031015"}
		var out bytes.Buffer
		if err := printVersion(&out, info, false); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("tag %q: printed %q, want %q", tc.tag, out.String(), tc.want)
		}
		out.Reset()
		if err := printVersion(&out, info, true); err != nil {
			t.Fatal(err)
		}
		var got buildinfo.Info
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		// The JSON keeps the empty tag: it is the wire's build object.
		if got != info {
			t.Errorf("--json = %+v, want %+v", got, info)
		}
	}
	// The subcommand prints this binary's own identity.
	var out, errOut bytes.Buffer
	if err := run([]string{"version", "--json"}, &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	var got buildinfo.Info
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got != buildinfo.Get() {
		t.Errorf("version --json = %s (%v), want %+v", out.String(), err, buildinfo.Get())
	}
}
