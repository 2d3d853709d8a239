package helper

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// MainClass is the helper's entry point for app_process.
const MainClass = "com.adbconnector.helper.Main"

var hashOnce = sync.OnceValue(func() string { return Hash16Of(Jar) })

// Hash16Of is the first 16 hex digits of jar's SHA-256: the part of the
// name on the phone that changes with its content, and the suffix of the
// version its HELLO says ("1.0.0+<hash16>").
func Hash16Of(jar []byte) string {
	sum := sha256.Sum256(jar)
	return hex.EncodeToString(sum[:8])
}

// Hash16 is Hash16Of(Jar).
func Hash16() string { return hashOnce() }

// PathFor is where a jar of hash16 lives on the phone: under
// /data/local/tmp, which the adb shell user may write and app_process may
// load from, with the content hash in the name, so a file of that name
// holds those bytes.
func PathFor(hash16 string) string { return "/data/local/tmp/adbc-helper-" + hash16 + ".jar" }

// PhonePath is PathFor(Hash16()).
func PhonePath() string { return PathFor(Hash16()) }
