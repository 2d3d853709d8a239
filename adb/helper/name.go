package helper

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// MainClass is the helper's entry point for app_process.
const MainClass = "com.adbconnector.helper.Main"

var hashOnce = sync.OnceValue(func() string {
	sum := sha256.Sum256(Jar)
	return hex.EncodeToString(sum[:])
})

// SHA256 is the hex SHA-256 of Jar.
func SHA256() string { return hashOnce() }

// Hash16 is the first 16 hex digits of Jar's SHA-256: the part of the
// name on the phone that changes with its content.
func Hash16() string { return SHA256()[:16] }

// PhonePath is where the jar lives on the phone: under /data/local/tmp,
// which the adb shell user may write and app_process may load from, with
// the content hash in the name, so a phone that has the file has these
// bytes (checked again by its SHA-256 before use).
func PhonePath() string { return "/data/local/tmp/adbc-helper-" + Hash16() + ".jar" }
