package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/adb-connector/adb-connector"

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// rule forbids packages under From (module-relative prefix) to import a path
// with one of the given prefixes, unless the importer is under one of Except.
type rule struct {
	why    string
	from   string // module-relative prefix; "" = every package
	forbid []string
	except []string // module-relative prefixes allowed anyway
	allow  []string // imported paths (prefixes) allowed although under forbid
	tests  bool     // also check test imports
}

var rules = []rule{
	{why: "only package store imports the SQLite driver", forbid: []string{"modernc.org/"}, except: []string{"store"}, tests: true},
	{why: "only sshtunnel imports x/crypto/ssh", forbid: []string{"golang.org/x/crypto/ssh"}, except: []string{"sshtunnel"}, tests: true},
	{why: "sshtunnel is transport only: it knows no adb protocol, xAgent or Profile outside its tests", from: "sshtunnel", forbid: []string{module + "/"}, allow: []string{module + "/sshtunnel", module + "/internal/tcpopt"}},
	{why: "only adb/ imports gadb", forbid: []string{"github.com/electricbubble/gadb"}, except: []string{"adb"}, tests: true},
	{why: "connector knows nothing of Android", from: "connector", forbid: []string{module + "/adb", module + "/device", module + "/files"}, tests: true},
	{why: "adb knows nothing of xAgent", from: "adb", forbid: []string{module + "/connector", module + "/device", module + "/files", module + "/store"}, tests: true},
	{why: "files is a plain byte store", from: "files", forbid: []string{module + "/adb", module + "/connector", module + "/device"}, tests: true},
	// The phone writes and reads device output without our parsers, so a
	// parser and the phone can never agree by construction; its tests may
	// import adb/parse to cross-check the two (tests: false).
	{why: "the virtual phone knows nothing of the connector, the adb client or its parsers", from: "emulator", forbid: []string{module + "/adb", module + "/connector", module + "/device", module + "/files", module + "/store"}},
	{why: "the phone's timing profiles know nothing else of the phone", from: "emulator/android/timing", forbid: []string{module + "/emulator/android"}, allow: []string{module + "/emulator/android/timing"}},
	{why: "the phone's file system knows nothing else of the phone", from: "emulator/android/vfs", forbid: []string{module + "/emulator/android"}, allow: []string{module + "/emulator/android/vfs"}},
	{why: "the phone's screen (scenarios, element tree, renderer) knows no device state or shell", from: "emulator/android/ui", forbid: []string{module + "/emulator/android"}, allow: []string{module + "/emulator/android/ui", module + "/emulator/android/timing"}},
	{why: "the shell's commands reach the device through shell.Phone, never package android", from: "emulator/android/shell", forbid: []string{module + "/emulator/android"}, allow: []string{module + "/emulator/android/shell", module + "/emulator/android/vfs", module + "/emulator/android/timing"}},
	// The phone's rooms, in dependency order: timing, vfs, ui, then model
	// (the state) beside shell (the toybox and mksh commands), then
	// services and devices beside each other, then package android, which
	// alone wires them (one command table, the Device).
	{why: "the phone's model (its state and how it reacts) knows no shell, command or device", from: "emulator/android/model", forbid: []string{module + "/emulator/android"}, allow: []string{module + "/emulator/android/model", module + "/emulator/android/ui", module + "/emulator/android/vfs", module + "/emulator/android/timing"}},
	{why: "Android's services print and act through the model and the shell's context, never through the devices or package android", from: "emulator/android/services", forbid: []string{module + "/emulator/android"}, allow: []string{module + "/emulator/android/services", module + "/emulator/android/model", module + "/emulator/android/shell", module + "/emulator/android/ui", module + "/emulator/android/vfs", module + "/emulator/android/timing"}},
	{why: "the phone's devices act through the model and the shell's context, never through the services or package android", from: "emulator/android/devices", forbid: []string{module + "/emulator/android"}, allow: []string{module + "/emulator/android/devices", module + "/emulator/android/model", module + "/emulator/android/shell", module + "/emulator/android/ui", module + "/emulator/android/vfs", module + "/emulator/android/timing"}},
	{why: "the adb client never depends on the virtual phone (its test harness adb/adbtest does)", from: "adb", forbid: []string{module + "/emulator"}, except: []string{"adb/adbtest"}},
	{why: "the Profile never depends on the virtual phone outside tests", from: "device", forbid: []string{module + "/emulator"}},
	{why: "the tool pipeline gets devices through its Resolver: it never imports the Profile, its tables or flows", from: "device/tools", forbid: []string{module + "/device"}, allow: []string{module + "/device/tools", module + "/device/imageproc", module + "/device/policy", module + "/device/audit", module + "/device/redact", module + "/device/ask"}, tests: true},
	{why: "adb's metrics are read off the adb Client: no Profile, tables or connector", from: "device/adbmetrics", forbid: []string{module + "/"}, allow: []string{module + "/adb", module + "/device/adbmetrics"}},
	{why: "the operator's questions are a board in memory: no Profile, tools, tables, adb or connector", from: "device/ask", forbid: []string{module + "/"}, tests: true},
	{why: "the policy is a config model: it knows no Profile, tools, tables or adb", from: "device/policy", forbid: []string{module + "/device", module + "/adb", module + "/store", module + "/connector"}, allow: []string{module + "/device/policy"}},
	{why: "the admin socket is a wire format: the CLI links no Profile, adb or SQLite", from: "device/admin", forbid: []string{module + "/device", module + "/adb", module + "/store", "modernc.org/"}, allow: []string{module + "/device/admin"}},
	{why: "the binding table knows no flow, tool or Profile", from: "device/binding", forbid: []string{module + "/device", module + "/adb"}, allow: []string{module + "/device/binding"}},
	{why: "the auth flows know no tool, admin socket or Profile", from: "device/auth", forbid: []string{module + "/device/tools", module + "/device/admin", module + "/connector"}},
	{why: "the operator console is a web page over the operator API: it reaches devices, tables and the database only through it", from: "device/console", forbid: []string{module + "/device", module + "/adb", module + "/store", module + "/connector", "modernc.org/"}, allow: []string{module + "/device/console", module + "/device/admin", module + "/device/operator", module + "/device/audit"}, tests: true},
	{why: "the operator API acts on the tables, flows, leases and resets: it knows no Profile or connector", from: "device/operator", forbid: []string{module + "/device", module + "/connector"}, allow: []string{module + "/device/operator", module + "/device/admin", module + "/device/auth", module + "/device/binding", module + "/device/lease", module + "/device/reset", module + "/device/audit", module + "/device/policy", module + "/device/redact", module + "/device/tools", module + "/device/imageproc", module + "/device/ask"}},
	{why: "the audit trail is rows in the database: it knows no Profile, tools, flows or adb", from: "device/audit", forbid: []string{module + "/device", module + "/adb", module + "/connector"}, allow: []string{module + "/device/audit", module + "/device/redact"}},
	{why: "leases are timers over the binding table: no Profile, adb or database of their own", from: "device/lease", forbid: []string{module + "/device", module + "/adb", module + "/store", module + "/connector"}, allow: []string{module + "/device/lease", module + "/device/binding", module + "/device/redact"}},
	{why: "resets act on a phone through adb and record through the binding table and the audit trail: no Profile, flows or tools", from: "device/reset", forbid: []string{module + "/device", module + "/connector"}, allow: []string{module + "/device/reset", module + "/device/binding", module + "/device/audit", module + "/device/redact"}},
	{why: "redact is a pure function of a serial", from: "device/redact", forbid: []string{module + "/"}},
	{why: "the Descriptor state rules are pure: no Profile, adb client calls or database", from: "device/descriptor", forbid: []string{module + "/device", module + "/connector", module + "/store"}, allow: []string{module + "/device/descriptor", module + "/device/binding"}},
	{why: "the Card's declarations and auth payloads know no Profile, tables or adb", from: "device/card", forbid: []string{module + "/device", module + "/adb", module + "/store"}, allow: []string{module + "/device/card", module + "/device/auth", module + "/device/admin"}},
	{why: "the headless browser drives tests only", forbid: []string{"github.com/chromedp/"}},
	{why: "ratelimit is a plain token bucket", from: "internal/ratelimit", forbid: []string{module + "/"}},
	{why: "binaries live only under cmd/", forbid: []string{module + "/cmd"}},
}

func under(rel, prefix string) bool {
	return prefix == "" || rel == prefix || strings.HasPrefix(rel, prefix+"/")
}

func TestImportRules(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var n int
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, r := range rules {
			if !under(rel, r.from) || anyUnder(rel, r.except) {
				continue
			}
			imports := p.Imports
			if r.tests {
				imports = append(append(append([]string(nil), imports...), p.TestImports...), p.XTestImports...)
			}
			for _, imp := range imports {
				if anyPrefix(imp, r.allow) {
					continue
				}
				for _, f := range r.forbid {
					if imp == f || strings.HasPrefix(imp, f+"/") || strings.HasSuffix(f, "/") && strings.HasPrefix(imp, f) {
						t.Errorf("%s imports %s: %s", p.ImportPath, imp, r.why)
					}
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("go list returned only %d packages", n)
	}
}

func anyUnder(rel string, prefixes []string) bool {
	for _, p := range prefixes {
		if under(rel, p) {
			return true
		}
	}
	return false
}

func anyPrefix(imp string, prefixes []string) bool {
	for _, p := range prefixes {
		if imp == p || strings.HasPrefix(imp, p+"/") {
			return true
		}
	}
	return false
}

// TestOneAuditWriter: only package device/audit names the audit table
// outside tests and migrations, so nothing else writes or queries its
// rows.
func TestOneAuditWriter(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", `{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, f := range strings.Fields(string(out)) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("tool_audit")) && filepath.Base(filepath.Dir(f)) != "audit" {
			t.Errorf("%s names the audit table: audit rows are written and read by package device/audit only", f)
		}
	}
}

// maxRoomFiles is how many .go files (tests too) one room of the virtual
// phone may hold: past that a newcomer cannot see what a room models, and
// the room wants splitting by what its parts model.
const maxRoomFiles = 25

// TestPhoneRoomsSize: no package of the virtual phone holds more than
// maxRoomFiles .go files.
func TestPhoneRoomsSize(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", module+"/emulator/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dirs := strings.Fields(string(out))
	if len(dirs) < 5 {
		t.Fatalf("go list returned only %d packages", len(dirs))
	}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) > maxRoomFiles {
			t.Errorf("%s holds %d .go files, more than %d: give it rooms by what they model", dir, len(files), maxRoomFiles)
		}
	}
}
