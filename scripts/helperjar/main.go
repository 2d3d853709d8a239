// Command helperjar assembles the phone helper's smali source into
// adb/helper/helper.jar, byte-identical on every build (see package
// internal/helperjar). Run it from the repository root after editing
// adb/helper/smali, and commit the jar: `go build` embeds it and never needs
// Java.
//
//	go run ./scripts/helperjar
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"

	"github.com/adb-connector/adb-connector/internal/helperjar"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "helperjar:", err)
		os.Exit(1)
	}
}

func run() error {
	src := flag.String("src", "adb/helper/smali", "the helper's smali source directory")
	out := flag.String("o", "adb/helper/helper.jar", "the jar to write")
	flag.Parse()
	jar, err := helperjar.Build(context.Background(), *src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, jar, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d bytes, sha256 %x\n", *out, len(jar), sha256.Sum256(jar))
	return nil
}
