package phonefw

import (
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// java holds the fake framework's sources, one tree for every SDK level.
// A member or a whole file that only some levels have carries a tag at the
// end of its lines (or alone on a file's first line):
//
//	// @sdk 34+      from 34 on
//	// @sdk -33      up to 33
//	// @sdk 30-33    30 to 33
//
// Source(sdk) keeps what level sdk has, so each level's classes have
// exactly AOSP's members and nothing is written twice.
//
//go:embed java
var java embed.FS

// Modeled lists the SDK levels whose framework signatures were checked
// against AOSP: Android 10, 13 and 14 (and, with 14's, later levels).
var Modeled = []int{29, 33, 34}

// MinSDK is the lowest level the fake framework builds for: below it the
// clipboard and UiAutomation signatures are not modeled.
const MinSDK = 29

// Source returns the fake framework's Java files for sdk, path -> text.
func Source(sdk int) (map[string]string, error) {
	out := map[string]string{}
	err := fs.WalkDir(java, "java", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".java") {
			return err
		}
		b, err := java.ReadFile(p)
		if err != nil {
			return err
		}
		text, keep, err := filter(string(b), sdk)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if keep {
			out[strings.TrimPrefix(p, "java/")] = strings.ReplaceAll(text, "@SDK@", strconv.Itoa(sdk))
		}
		return nil
	})
	return out, err
}

// filter drops the lines (or the whole file) sdk does not have.
func filter(src string, sdk int) (string, bool, error) {
	lines := strings.Split(src, "\n")
	if len(lines) > 0 {
		if tag, ok := strings.CutPrefix(strings.TrimSpace(lines[0]), "// @sdk "); ok {
			in, err := inRange(tag, sdk)
			if err != nil || !in {
				return "", false, err
			}
			lines = lines[1:]
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if i := strings.Index(l, "// @sdk "); i >= 0 {
			in, err := inRange(strings.TrimSpace(l[i+len("// @sdk "):]), sdk)
			if err != nil {
				return "", false, err
			}
			if !in {
				continue
			}
			l = strings.TrimRight(l[:i], " ")
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String(), true, nil
}

// inRange reads "34+", "-33" or "30-33".
func inRange(tag string, sdk int) (bool, error) {
	lo, hi := 0, 1<<30
	var err error
	switch {
	case strings.HasSuffix(tag, "+"):
		lo, err = strconv.Atoi(strings.TrimSuffix(tag, "+"))
	case strings.HasPrefix(tag, "-"):
		hi, err = strconv.Atoi(tag[1:])
	default:
		a, z, ok := strings.Cut(tag, "-")
		if !ok {
			return false, fmt.Errorf("bad @sdk tag %q", tag)
		}
		if lo, err = strconv.Atoi(a); err == nil {
			hi, err = strconv.Atoi(z)
		}
	}
	if err != nil {
		return false, fmt.Errorf("bad @sdk tag %q", tag)
	}
	return sdk >= lo && sdk <= hi, nil
}
