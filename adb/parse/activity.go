package parse

import (
	"fmt"
	"strings"
)

// resumedKeys are the fields of `dumpsys activity activities` naming the
// resumed activity, most reliable first: topResumedActivity= (Android 10+,
// per display), ResumedActivity: (Android 10+), mResumedActivity: (Android
// 8-9, per stack), mFocusedActivity: (Android 7 and older).
var resumedKeys = []string{"topResumedActivity=", "ResumedActivity:", "mResumedActivity:", "mFocusedActivity:"}

// TopActivity returns the package and fully qualified class of the resumed
// activity from `dumpsys activity activities`. Output without any of the
// known fields wraps ErrFormat; when the fields are present but name no
// activity (all "null") the error wraps ErrNotFound.
func TopActivity(out string) (pkg, activity string, err error) {
	lines := splitLines(out)
	seen := false
	for _, key := range resumedKeys {
		for _, line := range lines {
			t := strings.TrimSpace(line)
			if !strings.HasPrefix(t, key) {
				continue
			}
			seen = true
			if c, ok := componentInRecord(t[len(key):]); ok {
				return c.Package, c.Activity, nil
			}
		}
	}
	if seen {
		return "", "", fmt.Errorf("parse dumpsys activity: no resumed activity: %w", ErrNotFound)
	}
	return "", "", formatErr("dumpsys activity", "no resumed activity field in "+clip(out))
}
