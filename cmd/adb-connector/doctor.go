package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/adb-connector/adb-connector/adb"
)

func init() {
	register("doctor", "check the host, adb, phones and the running server; print the fix for each problem", runDoctor)
}

// Check outcomes, worst last.
const (
	statusOK   = "OK"
	statusWarn = "WARN"
	statusFail = "FAIL"
)

// finding is one line of doctor's report.
type finding struct {
	Check   string `json:"check"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// doctorConfig is what doctor looks at; the roots are fields so tests can
// point them at a made-up tree.
type doctorConfig struct {
	Endpoints  []string
	DataDir    string
	Listen     string
	KeyFile    string
	APIKey     string
	SysfsRoot  string // /sys
	UdevDir    string // /etc/udev/rules.d
	User       string // the service user ("" = the current one)
	MinFreeMiB int64
	Timeout    time.Duration
}

func runDoctor(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var eps endpointList
	if env := os.Getenv("ADB_CONNECTOR_ADB"); env != "" {
		for _, ep := range strings.Split(env, ",") {
			if err := eps.Set(strings.TrimSpace(ep)); err != nil {
				return fmt.Errorf("ADB_CONNECTOR_ADB: %w", err)
			}
		}
		eps.fromEnv = true
	}
	fs.Var(&eps, "adb", "adb server HOST:PORT, repeatable (env ADB_CONNECTOR_ADB; default "+adb.DefaultEndpoint+")")
	cfg := doctorConfig{}
	fs.StringVar(&cfg.DataDir, "data-dir", envOr(dataDirEnv, defaultDataDir), "the server's data directory (env "+dataDirEnv+")")
	fs.StringVar(&cfg.Listen, "listen", envOr("ADB_CONNECTOR_LISTEN", "127.0.0.1:8080"), "the server's listen address (env ADB_CONNECTOR_LISTEN)")
	fs.StringVar(&cfg.KeyFile, "api-key-file", envOr("ADB_CONNECTOR_API_KEY_FILE", ""), "the server's API key file (env ADB_CONNECTOR_API_KEY_FILE)")
	fs.StringVar(&cfg.SysfsRoot, "sysfs", "/sys", "sysfs root, where USB vendor ids are read")
	fs.StringVar(&cfg.UdevDir, "udev-dir", "/etc/udev/rules.d", "where udev rules are installed")
	fs.StringVar(&cfg.User, "user", "", "the user the service runs as (default: the current user)")
	fs.Int64Var(&cfg.MinFreeMiB, "min-free-mib", 1024, "free space the data directory's disk should have, in MiB")
	fs.DurationVar(&cfg.Timeout, "timeout", 5*time.Second, "bound of each network check")
	asJSON := fs.Bool("json", false, "print a JSON array of {check, status, message, fix}")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("doctor: unexpected argument %q", fs.Arg(0))
	}
	if cfg.Timeout <= 0 || cfg.MinFreeMiB < 0 {
		return errors.New("doctor: --timeout must be positive and --min-free-mib not negative")
	}
	cfg.Endpoints = eps.list
	if len(cfg.Endpoints) == 0 {
		cfg.Endpoints = []string{adb.DefaultEndpoint}
	}
	key, err := loadAPIKey(cfg.KeyFile, os.Getenv("ADB_CONNECTOR_API_KEY"))
	cfg.APIKey = key
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	report := doctor(ctx, cfg, err)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else {
		for _, f := range report {
			line := fmt.Sprintf("%-4s %s: %s", f.Status, f.Check, f.Message)
			if f.Fix != "" {
				line += " — fix: " + f.Fix
			}
			fmt.Fprintln(stdout, line)
		}
	}
	if slices.ContainsFunc(report, func(f finding) bool { return f.Status == statusFail }) {
		return errSilentFail
	}
	return nil
}

// errSilentFail makes the command exit 1 after a report that says why.
var errSilentFail = errors.New("doctor found problems (FAIL lines above)")

// doctor runs every check, in the order an operator fixes things.
func doctor(ctx context.Context, cfg doctorConfig, keyErr error) []finding {
	var out []finding
	add := func(f finding) { out = append(out, f) }
	add(checkADBBinary(ctx))
	out = append(out, checkServersAndPhones(ctx, cfg)...)
	add(checkUdev(cfg))
	add(checkPlugdev(cfg))
	out = append(out, checkDataDir(cfg)...)
	add(checkAPIKey(cfg, keyErr))
	add(checkExposure(cfg))
	add(checkDisk(cfg))
	add(checkHealth(ctx, cfg))
	return out
}

func checkADBBinary(ctx context.Context) finding {
	f := finding{Check: "adb binary"}
	path, err := exec.LookPath("adb")
	if err != nil {
		f.Status, f.Message, f.Fix = statusWarn, "adb is not on PATH (needed only to start a local adb server)", "apt-get install adb"
		return f
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		f.Status, f.Message, f.Fix = statusFail, path+" version failed: "+err.Error(), "reinstall adb (apt-get install --reinstall adb)"
		return f
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	f.Status, f.Message = statusOK, path+": "+first
	return f
}

// checkServersAndPhones reports each adb server and every phone it lists,
// with the fix for each state.
func checkServersAndPhones(ctx context.Context, cfg doctorConfig) []finding {
	var out []finding
	client, err := adb.New(ctx, adb.Config{Endpoints: cfg.Endpoints, NoTracking: true, DialTimeout: cfg.Timeout})
	if err != nil {
		return []finding{{Check: "adb servers", Status: statusFail, Message: err.Error(), Fix: "check --adb (HOST:PORT)"}}
	}
	defer client.Close()
	for _, ep := range client.Endpoints() {
		f := finding{Check: "adb server " + ep}
		vctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		v, err := client.ServerVersion(vctx, ep)
		cancel()
		if err != nil {
			f.Status, f.Message = statusFail, "not reachable: "+err.Error()
			f.Fix = "start it (adb -a -P PORT nodaemon server, or `adb start-server` for the local one) or fix --adb"
			out = append(out, f)
			continue
		}
		f.Status, f.Message = statusOK, fmt.Sprintf("reachable, protocol version %d", v)
		out = append(out, f)
	}
	list, _ := client.Devices(ctx) // a server that failed above is already reported
	if len(list) == 0 {
		out = append(out, finding{Check: "phones", Status: statusWarn, Message: "no phone is listed by any adb server",
			Fix: "plug a phone in with USB debugging on, or `adb connect HOST:PORT` for Wi-Fi"})
	}
	for _, d := range list {
		out = append(out, phoneFinding(cfg, d))
	}
	return out
}

// phoneFinding is one phone's state and what fixes it.
func phoneFinding(cfg doctorConfig, d adb.DeviceInfo) finding {
	f := finding{Check: "phone " + d.Key, Message: string(d.State)}
	switch {
	case d.State == adb.StateDevice:
		f.Status, f.Message = statusOK, "online and authorized"
	case d.State == adb.StateUnauthorized:
		f.Status, f.Fix = statusFail, "unlock the phone and accept the \"Allow USB debugging\" prompt (tick \"Always allow\")"
	case d.State == adb.StateOffline:
		f.Status, f.Fix = statusFail, "replug the cable, or run `adb reconnect offline`"
	case strings.HasPrefix(string(d.State), "no permissions"):
		f.Status = statusFail
		if vid := usbVendor(cfg.SysfsRoot, d.Serial); vid != "" {
			f.Fix = fmt.Sprintf("the udev rule is missing: add %s to %s/51-android.rules, then `udevadm control --reload-rules && udevadm trigger` and replug",
				udevRule(vid), cfg.UdevDir)
		} else {
			f.Fix = "the udev rule is missing: install udev/51-android.rules (README: Phones), reload udev and replug"
		}
	default:
		f.Status, f.Fix = statusWarn, "wait for the phone to finish booting or connecting; replug if it stays"
	}
	return f
}

// udevRule is the rule line that gives the plugdev group a vendor's phones.
func udevRule(vendorID string) string {
	return fmt.Sprintf(`SUBSYSTEM=="usb", ATTR{idVendor}=="%s", MODE="0660", GROUP="plugdev"`, vendorID)
}

// usbVendor reads the idVendor of the USB device whose serial is serial
// from sysfs (/sys/bus/usb/devices/*/serial), "" when none matches.
func usbVendor(sysfs, serial string) string {
	dirs, _ := filepath.Glob(filepath.Join(sysfs, "bus", "usb", "devices", "*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "serial"))
		if err != nil || strings.TrimSpace(string(b)) != serial {
			continue
		}
		if v, err := os.ReadFile(filepath.Join(dir, "idVendor")); err == nil {
			return strings.TrimSpace(string(v))
		}
	}
	return ""
}

func checkUdev(cfg doctorConfig) finding {
	f := finding{Check: "udev rules"}
	files, _ := filepath.Glob(filepath.Join(cfg.UdevDir, "*.rules"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), "idVendor") && strings.Contains(string(b), "plugdev") {
			f.Status, f.Message = statusOK, p+" gives plugdev access to USB phones"
			return f
		}
	}
	f.Status, f.Message = statusWarn, "no rule in "+cfg.UdevDir+" gives plugdev access to USB phones (TCP phones do not need one)"
	f.Fix = "sudo install -m 0644 udev/51-android.rules " + cfg.UdevDir + "/ && sudo udevadm control --reload-rules"
	return f
}

func checkPlugdev(cfg doctorConfig) finding {
	f := finding{Check: "plugdev group"}
	var u *user.User
	var err error
	if cfg.User != "" {
		u, err = user.Lookup(cfg.User)
	} else {
		u, err = user.Current()
	}
	if err != nil {
		f.Status, f.Message, f.Fix = statusWarn, "user unknown: "+err.Error(), "create the service user (README: systemd)"
		return f
	}
	g, err := user.LookupGroup("plugdev")
	if err != nil {
		f.Status, f.Message, f.Fix = statusWarn, "no plugdev group on this host", "sudo groupadd plugdev, and install the udev rules"
		return f
	}
	gids, _ := u.GroupIds()
	if u.Uid == "0" || slices.Contains(gids, g.Gid) {
		f.Status, f.Message = statusOK, u.Username+" can open USB phones (plugdev)"
		return f
	}
	f.Status, f.Message, f.Fix = statusWarn, u.Username+" is not in plugdev: USB phones show \"no permissions\"", "sudo usermod -aG plugdev "+u.Username+", then restart the service"
	return f
}

// checkDataDir checks the modes the server keeps: the directory 0700, the
// files in it 0600 (database, install secret, socket).
func checkDataDir(cfg doctorConfig) []finding {
	f := finding{Check: "data directory " + cfg.DataDir}
	fi, err := os.Stat(cfg.DataDir)
	if errors.Is(err, fs.ErrNotExist) {
		return []finding{{Check: f.Check, Status: statusWarn, Message: "does not exist yet (serve creates it 0700)"}}
	}
	if err != nil {
		return []finding{{Check: f.Check, Status: statusFail, Message: err.Error(), Fix: "check the path and its permissions"}}
	}
	out := []finding{}
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		out = append(out, finding{Check: f.Check, Status: statusFail, Message: fmt.Sprintf("mode %04o: others can read pairing state and files", m),
			Fix: "chmod 0700 " + cfg.DataDir})
	} else {
		out = append(out, finding{Check: f.Check, Status: statusOK, Message: fmt.Sprintf("mode %04o", m)})
	}
	for _, name := range []string{"adb-connector.db", "auth.key"} {
		out = append(out, fileModeFinding(filepath.Join(cfg.DataDir, name))...)
	}
	if cfg.KeyFile != "" {
		out = append(out, fileModeFinding(cfg.KeyFile)...)
	}
	return out
}

func fileModeFinding(path string) []finding {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // not created yet: serve creates it 0600
	}
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		return []finding{{Check: "file " + path, Status: statusFail, Message: fmt.Sprintf("mode %04o: readable by others", m), Fix: "chmod 0600 " + path}}
	}
	return []finding{{Check: "file " + path, Status: statusOK, Message: "mode 0600"}}
}

func checkAPIKey(cfg doctorConfig, keyErr error) finding {
	f := finding{Check: "API key"}
	switch {
	case keyErr != nil:
		f.Status, f.Message, f.Fix = statusFail, keyErr.Error(), "fix --api-key-file / ADB_CONNECTOR_API_KEY (one of them, one key on one line)"
	case cfg.APIKey == "":
		f.Status, f.Message, f.Fix = statusWarn, "none configured: anyone who reaches the port can drive the phones", "set --api-key-file (README: The API key)"
	default:
		f.Status, f.Message = statusOK, "configured"
	}
	return f
}

// checkExposure: a listen address beyond loopback without a key serves
// anyone on the network.
func checkExposure(cfg doctorConfig) finding {
	f := finding{Check: "listen address " + cfg.Listen}
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		f.Status, f.Message, f.Fix = statusFail, "not HOST:PORT", "fix --listen"
		return f
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || ip != nil && ip.IsLoopback()
	switch {
	case loopback:
		f.Status, f.Message = statusOK, "loopback only"
	case cfg.APIKey == "":
		f.Status, f.Message, f.Fix = statusFail, "reachable from other hosts with no API key", "set an API key, or listen on 127.0.0.1 behind a proxy that authenticates"
	default:
		f.Status, f.Message = statusOK, "reachable from other hosts; the API key is required"
	}
	return f
}

func checkDisk(cfg doctorConfig) finding {
	f := finding{Check: "free disk"}
	dir := cfg.DataDir
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Dir(filepath.Clean(dir))
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		f.Status, f.Message = statusWarn, "cannot tell: "+err.Error()
		return f
	}
	free := int64(st.Bavail) * int64(st.Bsize) >> 20
	f.Message = fmt.Sprintf("%d MiB free for files under %s", free, dir)
	switch {
	case free < cfg.MinFreeMiB/10:
		f.Status, f.Fix = statusFail, "free space, or lower --file-cap-bytes"
	case free < cfg.MinFreeMiB:
		f.Status, f.Fix = statusWarn, "screenshots and recordings need room: free space or lower --file-cap-bytes"
	default:
		f.Status = statusOK
	}
	return f
}

// checkHealth asks the running connector for /health at --listen.
func checkHealth(ctx context.Context, cfg doctorConfig) finding {
	f := finding{Check: "connector /health"}
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		f.Status, f.Message = statusFail, "no address to ask"
		return f
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/health", nil)
	if cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		f.Status, f.Message, f.Fix = statusFail, "not answering at "+cfg.Listen, "start it (systemctl start adb-connector, or adb-connector serve)"
		return f
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		f.Status, f.Message = statusOK, "answering at "+cfg.Listen
	case http.StatusUnauthorized, http.StatusForbidden:
		f.Status, f.Message, f.Fix = statusFail, "answering, but the API key is refused", "use the server's key (--api-key-file)"
	default:
		f.Status, f.Message = statusFail, fmt.Sprintf("answering %d", resp.StatusCode)
	}
	return f
}
