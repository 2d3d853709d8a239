package helper

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/adb-connector/adb-connector/internal/helperjar"
)

// TestJarMatchesSource reassembles smali/ and fails when the committed jar
// differs: the jar the binary embeds is the source in the repository.
func TestJarMatchesSource(t *testing.T) {
	jar, err := helperjar.Build(context.Background(), "smali")
	if errors.Is(err, helperjar.ErrNoSmali) {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(jar, Jar) {
		t.Fatalf("adb/helper/helper.jar (%d bytes) is not what smali/ assembles to (%d bytes): run `go run ./scripts/helperjar` and commit the jar", len(Jar), len(jar))
	}
	again, err := helperjar.Build(context.Background(), "smali")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(jar, again) {
		t.Fatal("two builds of smali/ differ: the jar is not reproducible")
	}
	dex, err := helperjar.ClassesDex(Jar)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(dex, []byte("dex\n035\x00")) {
		t.Fatalf("classes.dex starts %q, want dex format 035", dex[:8])
	}
}
