package parse

import "strings"

// Props parses the output of `getprop` (all properties), lines of the form
//
//	[ro.build.version.sdk]: [33]
//
// A value may span several lines (a property holding newlines); it continues
// until a line ends with "]". Lines that are not properties (warnings) are
// skipped; output without any property is an error.
func Props(out string) (map[string]string, error) {
	props := make(map[string]string)
	lines := splitLines(out)
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(line, "[") {
			continue
		}
		key, rest, ok := strings.Cut(line[1:], "]: [")
		if !ok || key == "" {
			continue
		}
		// Gather continuation lines until the value closes.
		val := rest
		j := i
		for !strings.HasSuffix(val, "]") && j+1 < len(lines) {
			j++
			val += "\n" + strings.TrimRight(lines[j], "\r")
		}
		if !strings.HasSuffix(val, "]") {
			return nil, formatErr("getprop", "unterminated value for "+clip(key))
		}
		props[key] = strings.TrimSuffix(val, "]")
		i = j
	}
	if len(props) == 0 {
		return nil, formatErr("getprop", "no properties in "+clip(out))
	}
	return props, nil
}

// splitLines splits on \n and drops a trailing \r from each line (adb shell
// without a pty may still deliver \r\n on old devices).
func splitLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
