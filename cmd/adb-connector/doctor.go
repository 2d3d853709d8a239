package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/operator"
	"github.com/adb-connector/adb-connector/sshtunnel"
)

func init() {
	register("doctor", "check adb, phones, udev, data dir, API key and the running server; exit 1 on a failure", runDoctor)
}

// Statuses of a doctor check.
const (
	statusOK   = "OK"
	statusWarn = "WARN"
	statusFail = "FAIL"
)

// checkResult is one line of doctor's report (and one element of --json).
type checkResult struct {
	Check   string `json:"check"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// doctor holds what the checks look at. The paths are fields so tests can
// point them at temp trees; zero values mean the real system.
type doctor struct {
	cfg    serveConfig
	keyErr error // a key file or env serve would refuse

	ADBPath     string   // adb binary; default "adb" on PATH
	SysRoot     string   // sysfs root; default /sys
	UdevDirs    []string // where udev rules live; default /etc/udev/rules.d, /lib/udev/rules.d, /usr/lib/udev/rules.d
	GroupFile   string   // default /etc/group
	ServiceUser string   // the user serve runs as; default the current user
	// Timeout bounds each network check. Default 5 s.
	Timeout time.Duration
}

func runDoctor(args []string, stdout, stderr io.Writer) error {
	d, asJSON, err := parseDoctorArgs(args, stdout, stderr)
	if err != nil {
		return err
	}
	results := d.run(context.Background())
	if err := printResults(stdout, results, asJSON); err != nil {
		return err
	}
	for _, r := range results {
		if r.Status == statusFail {
			return errFailed // the report already says why; exit 1 without another line
		}
	}
	return nil
}

// parseDoctorFlags takes serve's flags (and env), so the operator checks
// the configuration serve runs with, plus doctor's own.
func parseDoctorFlags(args []string, stderr io.Writer) (d *doctor, asJSON bool, err error) {
	return parseDoctorArgs(args, io.Discard, stderr)
}

// parseDoctorArgs is parseDoctorFlags with --help to stdout.
func parseDoctorArgs(args []string, stdout, stderr io.Writer) (d *doctor, asJSON bool, err error) {
	fs := newFlags("doctor", stdout, "doctor [--json] [--service-user USER] [serve's flags]",
		"Checks the host and the configuration serve would run with (the same flags, environment and config file),",
		"and says how to fix what fails.")
	config := registerServeFlags(fs)
	jsonFlag := fs.Bool("json", false, "print a JSON array of {check, status, message, fix}")
	svcUser := fs.String("service-user", "", "the `USER` serve runs as, for the plugdev check (default: the current user)")
	pos, err := parseArgs(fs, args, stderr)
	if err != nil {
		return nil, false, err
	}
	if err := wantArgs(fs, stderr, pos); err != nil {
		return nil, false, err
	}
	cfg, err := config()
	var keyErr *apiKeyError
	if err != nil && !errors.As(err, &keyErr) {
		return nil, false, err
	}
	d = &doctor{cfg: cfg, ServiceUser: *svcUser}
	if keyErr != nil {
		d.keyErr = keyErr.err // reported by the api-key check
	}
	return d, *jsonFlag, nil
}

func printResults(w io.Writer, results []checkResult, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	for _, r := range results {
		line := fmt.Sprintf("%-4s  %-12s %s", r.Status, r.Check, r.Message)
		if r.Fix != "" {
			line += " -- fix: " + r.Fix
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// run runs every check in the order an operator fixes things: adb, its
// servers and phones, the host's USB setup, then the server's own files and
// endpoint.
func (d *doctor) run(ctx context.Context) []checkResult {
	var out []checkResult
	out = append(out, d.checkADBBinary(ctx))
	out = append(out, d.checkADBServers(ctx)...)
	out = append(out, d.checkUdev(), d.checkPlugdev())
	out = append(out, d.checkDataDir()...)
	out = append(out, d.checkAPIKey(), d.checkExposure(), d.checkDisk(), d.checkHealth(ctx))
	return out
}

func (d *doctor) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return 5 * time.Second
}

func (d *doctor) endpoints() []string {
	if len(d.cfg.Device.Endpoints.list) == 0 {
		return []string{adb.DefaultEndpoint}
	}
	return d.cfg.Device.Endpoints.list
}

// checkADBBinary runs `adb version`: serve starts a local adb server with it.
func (d *doctor) checkADBBinary(ctx context.Context) checkResult {
	r := checkResult{Check: "adb"}
	name := d.ADBPath
	if name == "" {
		name = "adb"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		// serve needs adb only to start a local server; remote ones run their own.
		r.Status, r.Message = statusWarn, fmt.Sprintf("%s is not on PATH; every --adb server is remote", name)
		for _, ep := range d.endpoints() {
			if host, _, _ := net.SplitHostPort(ep); isLoopbackHost(host) {
				r.Status, r.Message = statusFail, fmt.Sprintf("%s is not on PATH: serve cannot start the adb server at %s", name, ep)
			}
		}
		r.Fix = "install it (apt-get install -y adb), or point --adb at a running adb server"
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()
	b, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		r.Status, r.Message = statusFail, fmt.Sprintf("%s version: %v", path, err)
		r.Fix = "reinstall adb (apt-get install --reinstall adb)"
		return r
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	r.Status, r.Message = statusOK, fmt.Sprintf("%s: %s", path, first)
	return r
}

// checkADBServers asks each configured adb server its version, then lists
// its phones, one check each.
func (d *doctor) checkADBServers(ctx context.Context) []checkResult {
	var out []checkResult
	dialing, err := d.cfg.Device.SSH.dialing(d.endpoints(), slog.New(slog.DiscardHandler))
	if err != nil {
		return []checkResult{{Check: "adb-server", Status: statusFail, Message: err.Error(), Fix: "fix --adb (HOST:PORT or ssh://USER@HOST) and --ssh-key"}}
	}
	defer dialing.close()
	for _, ep := range dialing.Endpoints {
		if tu := dialing.Tunnels[ep]; tu != nil {
			r := d.checkSSH(ctx, tu)
			out = append(out, r)
			if r.Status == statusFail {
				continue
			}
		}
		c, err := adb.New(ctx, adb.Config{Endpoints: []string{ep}, Dialers: dialing.Dialers, NoTracking: true, DialTimeout: d.timeout()})
		if err != nil {
			out = append(out, checkResult{Check: "adb-server", Status: statusFail, Message: err.Error(), Fix: "fix --adb (HOST:PORT or ssh://USER@HOST)"})
			continue
		}
		out = append(out, d.checkADBServer(ctx, c, ep, dialing.Tunnels[ep] != nil)...)
		c.Close()
	}
	return out
}

func (d *doctor) checkADBServer(ctx context.Context, c *adb.Client, ep string, viaSSH bool) []checkResult {
	cctx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()
	v, err := c.ServerVersion(cctx, ep)
	if err != nil {
		fix := "start it on that host: adb -a -P PORT server nodaemon, and open the port to this host"
		if errors.Is(err, sshtunnel.ErrForwardRefused) {
			fix = "let the SSH user forward to the adb server: AllowTcpForwarding local and PermitOpen 127.0.0.1:5037 in the lab host's sshd_config"
		} else if viaSSH {
			fix = "start it on the lab host, on its loopback: adb -P 5037 start-server"
		} else if host, port, _ := net.SplitHostPort(ep); isLoopbackHost(host) {
			fix = "start it: adb -P " + port + " start-server (serve also starts it when adb is on PATH)"
		}
		return []checkResult{{Check: "adb-server", Status: statusFail, Message: fmt.Sprintf("%s not reachable: %v", ep, err), Fix: fix}}
	}
	out := []checkResult{{Check: "adb-server", Status: statusOK, Message: fmt.Sprintf("%s answers, protocol version %d", ep, v)}}
	list, err := c.Devices(cctx)
	if err != nil {
		return append(out, checkResult{Check: "phones", Status: statusFail, Message: fmt.Sprintf("%s: list devices: %v", ep, err), Fix: "restart the adb server: adb -P PORT kill-server"})
	}
	if len(list) == 0 {
		return append(out, checkResult{Check: "phones", Status: statusWarn, Message: ep + " lists no phone",
			Fix: "plug a phone in with USB debugging on (Settings > Developer options), or adb connect HOST:PORT"})
	}
	for _, info := range list {
		out = append(out, d.checkPhone(info))
		if info.State == adb.StateDevice {
			out = append(out, d.checkHelper(ctx, c, info))
		}
	}
	return out
}

// checkHelper starts the phone helper once on a phone that answers and
// says whether it runs, its version, and why not. The stock commands serve
// a phone without it, so it is never a failure.
func (d *doctor) checkHelper(ctx context.Context, c *adb.Client, info adb.DeviceInfo) checkResult {
	r := checkResult{Check: "phone-helper", Status: statusOK}
	dev, err := c.Device(info.Key)
	if err != nil {
		r.Status, r.Message = statusWarn, err.Error()
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout()+5*time.Second)
	defer cancel()
	st := dev.ProbeHelper(ctx)
	r.Message = info.Serial + ": " + st.Summary()
	switch {
	case st.Running && st.Reason != "":
		r.Status, r.Fix = statusWarn, "another tool holds the phone's UiAutomation (uiautomator2, Appium, a running uiautomator, or this server's own helper): UI trees and text take the stock path until it lets go"
	case !st.Running && st.Why == adb.HelperWhySDK:
		r.Status = statusWarn
		r.Fix = fmt.Sprintf("none needed: the stock commands serve it (the helper runs on Android 10, SDK %d, and later)", adb.HelperMinSDK)
	case !st.Running:
		r.Status, r.Fix = statusWarn, "none needed: the stock commands serve it; the server's log says more (phone helper failed)"
	}
	return r
}

// checkPhone maps a phone's adb state to its fix.
func (d *doctor) checkPhone(info adb.DeviceInfo) checkResult {
	r := checkResult{Check: "phone", Message: fmt.Sprintf("%s on %s: %s", info.Serial, info.Endpoint, info.State)}
	switch info.State {
	case adb.StateDevice:
		r.Status = statusOK
		if info.Model != "" {
			r.Message += " (" + info.Model + ")"
		}
	case adb.StateNoPermissions:
		r.Status, r.Fix = statusFail, d.udevFix(info)
	case adb.StateAuthorizing, adb.StateConnecting:
		r.Status, r.Fix = statusWarn, operator.StateFix(string(info.State))
	default: // the console shows the same fix on the phone's card
		r.Status, r.Fix = statusFail, operator.StateFix(string(info.State))
	}
	return r
}

// isLoopbackHost reports whether host names this machine only.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkAPIKey: with no key, anyone who reaches --listen drives the phones.
func (d *doctor) checkAPIKey() checkResult {
	r := checkResult{Check: "api-key"}
	switch {
	case d.keyErr != nil:
		r.Status, r.Message, r.Fix = statusFail, d.keyErr.Error(), "make --api-key-file hold one key, readable by the service user (0640, group adb-connector)"
	case d.cfg.APIKey == "":
		r.Status, r.Message, r.Fix = statusWarn, "no API key: /ws, /health and /metrics are open to whoever reaches "+d.cfg.Listen,
			"openssl rand -hex 32 | sudo install -m 0640 -g adb-connector /dev/stdin /etc/adb-connector/api-key, then --api-key-file /etc/adb-connector/api-key"
	case d.cfg.KeyFile != "":
		r.Status, r.Message = statusOK, "configured (--api-key-file "+d.cfg.KeyFile+")"
	default:
		r.Status, r.Message = statusOK, "configured (ADB_CONNECTOR_API_KEY)"
	}
	return r
}

// checkExposure: a listener beyond loopback with no key gives the phones to
// the whole network.
func (d *doctor) checkExposure() checkResult {
	r := checkResult{Check: "listen"}
	host, _, err := net.SplitHostPort(d.cfg.Listen)
	if err != nil {
		r.Status, r.Message, r.Fix = statusFail, fmt.Sprintf("--listen %q: %v", d.cfg.Listen, err), "use HOST:PORT, e.g. 127.0.0.1:8080"
		return r
	}
	switch {
	case isLoopbackHost(host):
		r.Status, r.Message = statusOK, d.cfg.Listen+" is reachable from this host only"
	case d.cfg.APIKey == "" && d.keyErr == nil:
		r.Status, r.Message = statusWarn, d.cfg.Listen+" is reachable from other hosts with no API key"
		r.Fix = "set an API key (--api-key-file), or --listen 127.0.0.1:PORT behind a proxy"
	default:
		r.Status, r.Message = statusOK, d.cfg.Listen+" is reachable from other hosts; requests need the API key"
	}
	return r
}

// checkHealth asks the running server's /health, as xAgent would.
func (d *doctor) checkHealth(ctx context.Context) checkResult {
	r := checkResult{Check: "health"}
	host, port, err := net.SplitHostPort(d.cfg.Listen)
	if err != nil {
		r.Status, r.Message = statusFail, fmt.Sprintf("--listen %q: %v", d.cfg.Listen, err)
		return r
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1" // a wildcard listener answers on loopback too
	}
	url := "http://" + net.JoinHostPort(host, port) + "/health"
	ctx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		r.Status, r.Message = statusFail, err.Error()
		return r
	}
	if d.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+d.cfg.APIKey)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		r.Status, r.Message = statusFail, err.Error() // names the URL
		r.Fix = "start the server (systemctl start adb-connector, or adb-connector serve) with the same --listen"
		return r
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	switch {
	case resp.StatusCode == http.StatusOK:
		r.Status, r.Message = statusOK, url+" answers 200"
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		r.Status, r.Message = statusFail, fmt.Sprintf("%s refuses the API key (%s)", url, resp.Status)
		r.Fix = "give doctor the server's key: the same --api-key-file or ADB_CONNECTOR_API_KEY as serve"
	default:
		r.Status, r.Message = statusFail, fmt.Sprintf("%s answers %s", url, resp.Status)
		r.Fix = "read the server's log (journalctl -u adb-connector)"
	}
	return r
}

// currentUser is the default service user.
func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}
