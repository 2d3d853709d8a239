package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxModelLen bounds the model part of a display name, in runes.
const maxModelLen = 48

// DisplayName is the Descriptor's target.display_name: "<model> (<hint>)",
// e.g. "Pixel 7 (…3F9A)". It never holds a full serial, an IP address or a
// port: see SerialHint. An empty model reads "Android device".
func DisplayName(model, serial string) string {
	m := Model(model)
	if m == "" {
		m = "Android device"
	}
	return m + " (" + SerialHint(serial) + ")"
}

// SerialHint redacts a serial for display and logs. A USB serial keeps its
// last 4 characters ("…3F9A"), fewer when it is short, so most of it is
// always hidden. A network serial ("192.168.1.20:5555", "[fe80::1]:5555",
// an mDNS "adb-XXXX._adb-tls-connect._tcp" name) shows no address or port:
// "tcp #" and 4 hex digits of its SHA-256, stable for the same serial.
func SerialHint(serial string) string {
	if serial == "" {
		return "unknown"
	}
	if isNetworkSerial(serial) {
		sum := sha256.Sum256([]byte(serial))
		return "tcp #" + hex.EncodeToString(sum[:2])
	}
	n := utf8.RuneCountInString(serial)
	keep := 4
	switch {
	case n <= 2:
		keep = 0
	case n < 8:
		keep = n / 3
	}
	r := []rune(serial)
	return "…" + string(r[n-keep:])
}

// isNetworkSerial reports whether adb names the device by a network address
// or service name rather than a USB serial number.
func isNetworkSerial(serial string) bool {
	if strings.Contains(serial, "._adb") || strings.HasSuffix(serial, "._tcp") || strings.HasSuffix(serial, "._tcp.") {
		return true
	}
	if host, _, err := net.SplitHostPort(serial); err == nil && host != "" {
		return true
	}
	return net.ParseIP(strings.Trim(serial, "[]")) != nil
}

// Model drops control and format characters, folds whitespace and
// bounds the length of a model name reported by the device.
func Model(model string) string {
	var sb strings.Builder
	n, space := 0, false
	for _, r := range model {
		switch {
		case unicode.IsSpace(r) || r == '_':
			space = sb.Len() > 0
			continue
		case !unicode.IsPrint(r):
			continue
		}
		if n >= maxModelLen {
			break
		}
		if space {
			sb.WriteByte(' ')
			n++
			space = false
		}
		sb.WriteRune(r)
		n++
	}
	return sb.String()
}

// KeyHint is the redacted hint of a device key ("endpoint/serial", or a
// bare serial): the SerialHint of its serial, as logs and the audit trail
// show it.
func KeyHint(key string) string {
	if _, serial, ok := strings.Cut(key, "/"); ok {
		key = serial
	}
	return SerialHint(key)
}

// channelLabelHex is how many characters of a channel id's random part
// its label keeps: 6 hex digits tell apart the few channels a lab holds
// at once and are short enough to read out.
const channelLabelHex = 6

// ChannelLabel is the short label operators see for a
// connector_channel_id ("cch_3f9a1c" for "cch_3f9a1c…" with 32 hex
// digits): its prefix and first 6 characters, without the "…". The audit
// filter takes it as a prefix of the id. A channel id is no secret (every
// audit row holds it whole); the label is for reading.
func ChannelLabel(id string) string {
	prefix, rest, ok := strings.Cut(id, "_")
	if !ok {
		prefix, rest = "", id
	} else {
		prefix += "_"
	}
	r := []rune(rest)
	if len(r) <= channelLabelHex {
		return id
	}
	return prefix + string(r[:channelLabelHex])
}
