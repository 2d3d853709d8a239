package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/adb-connector/adb-connector/internal/buildinfo"
)

func init() {
	register("version", "print the build identity", runVersion)
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the build object as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	info := buildinfo.Get()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(info)
	}
	_, err := fmt.Fprintf(stdout, "adb-connector %s (tag %s, rev %s, built %s)\n",
		info.Version, info.GitTag, info.GitRev, info.BuildTime)
	return err
}
