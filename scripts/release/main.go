// Command release builds the release tarballs and SHA256SUMS into a
// directory; `make release` runs it with the version, tag, rev and commit time
// it reads from git. See package internal/release for what makes the output
// reproducible.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/adb-connector/adb-connector/internal/release"
)

func main() {
	var (
		o       release.Options
		targets string
	)
	flag.StringVar(&o.Root, "root", ".", "module root")
	flag.StringVar(&o.Out, "out", "dist", "output directory")
	flag.StringVar(&o.Version, "version", "", "version (required)")
	flag.StringVar(&o.GitTag, "tag", "", "git tag at the commit, if any")
	flag.StringVar(&o.GitRev, "rev", "", "git commit, short (required)")
	flag.Int64Var(&o.Epoch, "epoch", 0, "commit time in Unix seconds, git log -1 --format=%ct (required)")
	flag.StringVar(&o.Go, "go", "go", "go command")
	flag.StringVar(&targets, "targets", "", "comma-separated os/arch list (default all release targets)")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "release: unexpected arguments:", flag.Args())
		os.Exit(2)
	}
	if targets != "" {
		for _, s := range strings.Split(targets, ",") {
			t, err := release.ParseTarget(strings.TrimSpace(s))
			if err != nil {
				fmt.Fprintln(os.Stderr, "release:", err)
				os.Exit(2)
			}
			o.Targets = append(o.Targets, t)
		}
	}
	if strings.HasSuffix(o.Version, "-dirty") {
		// Still built (handy to try the packaging), but it is not the
		// commit's release: another build of the same commit differs.
		fmt.Fprintln(os.Stderr, "release: warning: uncommitted changes; version", o.Version)
	}
	o.Log = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	arts, err := release.Build(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	for _, a := range arts {
		fmt.Printf("%s  %s\n", a.SHA256, a.Name)
	}
}
