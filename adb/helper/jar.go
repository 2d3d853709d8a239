package helper

import (
	"crypto/sha256"
	_ "embed" // the helper's jar
	"encoding/hex"
)

// Jar is the phone helper, assembled from smali/ by scripts/helperjar
// (`go run ./scripts/helperjar`): a zip holding classes.dex, which
// app_process runs. Committed, so building the connector needs no Java;
// TestJarMatchesSource fails when it is stale. Read-only: never modify.
//
//go:embed helper.jar
var Jar []byte

// JarSHA256 is the hex sha256 of Jar; the phone's copy is named after its
// first 16 digits, so a changed helper is pushed again.
var JarSHA256 = func() string {
	s := sha256.Sum256(Jar)
	return hex.EncodeToString(s[:])
}()
