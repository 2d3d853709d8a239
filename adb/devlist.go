package adb

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// State is a device's connection state as the adb server reports it.
type State string

// States reported by adb servers (adb 29 and later). Others pass through
// verbatim.
const (
	StateDevice        State = "device"
	StateOffline       State = "offline"
	StateUnauthorized  State = "unauthorized"
	StateAuthorizing   State = "authorizing"
	StateConnecting    State = "connecting"
	StateBootloader    State = "bootloader"
	StateRecovery      State = "recovery"
	StateSideload      State = "sideload"
	StateRescue        State = "rescue"
	StateHost          State = "host"
	StateNoPermissions State = "no permissions"
	StateUnknown       State = "unknown"
)

// Transport says how a device is attached to its adb server.
type Transport string

// Transports.
const (
	TransportUSB      Transport = "usb"
	TransportTCP      Transport = "tcp"
	TransportEmulator Transport = "emulator"
)

// DeviceInfo describes one device as listed by an adb server.
type DeviceInfo struct {
	Key       string    // endpoint + "/" + serial, unique across endpoints
	Endpoint  string    // adb server "host:port"
	Serial    string    // serial as the adb server knows it
	State     State     // device, offline, unauthorized, ...
	Model     string    // e.g. "Pixel_7"; empty until authorized
	Product   string    // e.g. "panther"
	Device    string    // e.g. "panther"
	Transport Transport // usb, tcp or emulator
	DevPath   string    // USB path ("usb:1-1.2"), when given
	// TransportID is the adb server's transport id (0 if not reported).
	TransportID int64
}

// Ready reports whether commands can be run on the device.
func (d DeviceInfo) Ready() bool { return d.State == StateDevice }

// DeviceKey joins an endpoint and a serial into a device key.
func DeviceKey(endpoint, serial string) string { return endpoint + "/" + serial }

// SplitKey splits a device key into endpoint and serial.
func SplitKey(key string) (endpoint, serial string, err error) {
	ep, s, ok := strings.Cut(key, "/")
	if !ok || ep == "" || s == "" {
		return "", "", &DeviceError{Key: key, Op: "split key", Err: fmt.Errorf("%w: malformed device key", ErrDeviceNotFound)}
	}
	return ep, s, nil
}

// parseDeviceList decodes the payload of host:devices-l (and each message of
// host:track-devices-l). Unlike gadb, it keeps every line, including offline
// and unauthorized devices that carry no model/product attributes, and
// states that contain spaces ("no permissions (...)").
func parseDeviceList(endpoint, payload string) ([]DeviceInfo, error) {
	var out []DeviceInfo
	for line := range strings.SplitSeq(payload, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		d, err := parseDeviceLine(line)
		if err != nil {
			return nil, err
		}
		d.Endpoint = endpoint
		d.Key = DeviceKey(endpoint, d.Serial)
		out = append(out, d)
	}
	return out, nil
}

func parseDeviceLine(line string) (DeviceInfo, error) {
	var d DeviceInfo
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return d, fmt.Errorf("%w: device line %q", ErrProtocol, line)
	}
	d.Serial = fields[0]
	rest := fields[1:]
	// The state runs until the first key:value attribute (or "usb:" path).
	i := 0
	for i < len(rest) && !isAttr(rest[i]) {
		i++
	}
	if i == 0 {
		return d, fmt.Errorf("%w: device line without state %q", ErrProtocol, line)
	}
	state := strings.Join(rest[:i], " ")
	if strings.HasPrefix(state, string(StateNoPermissions)) {
		state = string(StateNoPermissions)
	}
	d.State = State(state)
	for _, f := range rest[i:] {
		k, v, _ := strings.Cut(f, ":")
		switch k {
		case "usb":
			d.DevPath = f
		case "product":
			d.Product = v
		case "model":
			d.Model = v
		case "device":
			d.Device = v
		case "transport_id":
			d.TransportID, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	d.Transport = transportOf(d.Serial, d.DevPath)
	return d, nil
}

// isAttr reports whether a field is a key:value attribute of devices-l.
func isAttr(f string) bool {
	k, _, ok := strings.Cut(f, ":")
	if !ok || k == "" {
		return false
	}
	for _, r := range k {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return true
}

func transportOf(serial, devpath string) Transport {
	if devpath != "" {
		return TransportUSB
	}
	if strings.HasPrefix(serial, "emulator-") {
		return TransportEmulator
	}
	host, port, err := net.SplitHostPort(serial)
	if err == nil && host != "" {
		if _, err := strconv.Atoi(port); err == nil {
			return TransportTCP
		}
	}
	if strings.Contains(serial, "._adb-tls-connect._tcp") {
		return TransportTCP
	}
	return TransportUSB
}
