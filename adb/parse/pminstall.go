package parse

import "strings"

// PMOutcome is what `pm install` or `pm uninstall` reported. AOSP
// PackageManagerShellCommand (doCommitSession for install, runUninstall)
// prints "Success", or "Failure [" + the status message + "]", whose
// message starts with the failure's code (INSTALL_FAILED_VERSION_DOWNGRADE:
// Downgrade detected: ..., DELETE_FAILED_INTERNAL_ERROR); bad arguments
// print "Error: ..."; an exception thrown on the way prints "Exception
// occurred while executing '...':" and the exception's line.
type PMOutcome struct {
	// OK: "Success".
	OK bool `json:"ok"`
	// Code is the failure's code (INSTALL_FAILED_..., INSTALL_PARSE_FAILED_...,
	// DELETE_FAILED_...); "" for an Error: line or an exception.
	Code string `json:"code,omitempty"`
	// Message is the whole failure line's text inside the brackets, or the
	// Error: or exception line.
	Message string `json:"message,omitempty"`
}

// PMResult reads the output of `pm install` or `pm uninstall` (stdout and
// stderr together). Output with none of the lines above wraps ErrFormat.
func PMResult(out string) (PMOutcome, error) {
	var exception bool
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "Success":
			return PMOutcome{OK: true}, nil
		case strings.HasPrefix(line, "Failure [") && strings.HasSuffix(line, "]"):
			msg := line[len("Failure [") : len(line)-1]
			code, _, _ := strings.Cut(msg, ":")
			if !isFailureCode(code) {
				code = ""
			}
			return PMOutcome{Code: code, Message: msg}, nil
		case strings.HasPrefix(line, "Error: "):
			return PMOutcome{Message: strings.TrimPrefix(line, "Error: ")}, nil
		case strings.HasPrefix(line, "Exception occurred while executing"):
			exception = true
		case exception && line != "":
			return PMOutcome{Message: line}, nil
		}
	}
	return PMOutcome{}, formatErr("pm install/uninstall", "no Success, Failure or Error line in "+clip(out))
}

// isFailureCode: an upper-case constant name of PackageManager
// (INSTALL_FAILED_INVALID_APK), not free text ("not installed for 0").
func isFailureCode(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}
