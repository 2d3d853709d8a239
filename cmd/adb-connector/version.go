package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/adb-connector/adb-connector/internal/buildinfo"
)

func init() {
	register("version", "print the build identity", runVersion)
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stdout, "version [--json]", "Prints the build identity: version, git tag, revision, build time (also: adb-connector --version).")
	asJSON := fs.Bool("json", false, "print the build object as JSON")
	pos, err := parseArgs(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, stderr, pos); err != nil {
		return err
	}
	return printVersion(stdout, buildinfo.Get(), *asJSON)
}

func printVersion(w io.Writer, info buildinfo.Info, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(info)
	}
	// Most builds are of a commit without a tag: say so rather than "tag ,".
	tag := info.GitTag
	if tag == "" {
		tag = "none"
	}
	_, err := fmt.Fprintf(w, "adb-connector %s (tag %s, rev %s, built %s)\n",
		info.Version, tag, info.GitRev, info.BuildTime)
	return err
}
