// Package release builds the release tarballs of adb-connector: one per
// target platform, each with the binary and the files an operator installs
// from, plus SHA256SUMS. The same commit, built with the same Go toolchain,
// gives byte-identical tarballs: the binary is built with -trimpath and CGO
// off, every archive entry has a fixed mtime (the commit time), owner and
// mode, entries are sorted and gzip records no name or time. It is written in
// Go rather than with tar(1) so that it gives the same bytes on any host
// (GNU and BSD tar differ in their defaults and flags).
package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/internal/buildinfo"
)

// Name is the binary's name and the prefix of every tarball.
const Name = "adb-connector"

// SumsFile lists the SHA-256 of every tarball, in the format of sha256sum(1).
const SumsFile = "SHA256SUMS"

const buildinfoPkg = "github.com/adb-connector/adb-connector/internal/buildinfo"

// Target is a GOOS/GOARCH pair.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// ParseTarget reads "os/arch".
func ParseTarget(s string) (Target, error) {
	goos, goarch, ok := strings.Cut(s, "/")
	if !ok || goos == "" || goarch == "" || strings.Contains(goarch, "/") {
		return Target{}, fmt.Errorf("target %q: want os/arch", s)
	}
	return Target{OS: goos, Arch: goarch}, nil
}

// Targets are the platforms a release is built for: the lab hosts (Linux)
// and the operators' laptops (macOS), on both CPU families.
var Targets = []Target{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
}

// Files are the repository files every tarball carries besides the binary,
// under the same paths, so that the README's relative links still work once
// unpacked. A missing one fails the release rather than shipping without it.
var Files = []string{
	"README.md",
	"deploy/README.md",
	"deploy/adb-connector.example.yaml",
	"deploy/adb-connector.service",
	"deploy/adb-server.service",
	"docs/agent-protocol.md",
	"udev/51-android.rules",
}

// Options describe one release.
type Options struct {
	Root    string   // module root: the source of the binary and of Files
	Out     string   // directory the tarballs and SumsFile are written to (created)
	Version string   // e.g. 0.2.0 or what git describe says; part of the tarball names
	GitTag  string   // the tag at the commit, or ""
	GitRev  string   // the commit, short
	Epoch   int64    // the commit time (Unix seconds): every mtime, and the build time
	Targets []Target // nil: Targets
	Go      string   // the go command; "" is "go" from PATH
	Env     []string // added to the go command's environment (e.g. GOCACHE)
	Log     io.Writer
}

// Artifact is one file written to Out.
type Artifact struct {
	Name   string // base name
	Size   int64
	SHA256 string // hex
}

var (
	versionRe = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]*$`)
	revRe     = regexp.MustCompile(`^[0-9A-Za-z]+$`)
)

// TarballName is the tarball of version for t.
func TarballName(version string, t Target) string {
	return fmt.Sprintf("%s-%s-%s-%s.tar.gz", Name, version, t.OS, t.Arch)
}

// BuildTime is the build time injected for a release made at epoch.
func BuildTime(epoch int64) string {
	return time.Unix(epoch, 0).UTC().Format(buildinfo.TimeLayout)
}

// Build builds a release: one tarball per target, then SumsFile. It returns
// the tarballs and SumsFile, in the order of SumsFile (by name), SumsFile last.
func Build(ctx context.Context, o Options) ([]Artifact, error) {
	// The values end up in file names and -ldflags: refuse anything that
	// could be a path or split an argument.
	if !versionRe.MatchString(o.Version) {
		return nil, fmt.Errorf("version %q: want letters, digits and . + _ -", o.Version)
	}
	if o.GitTag != "" && !versionRe.MatchString(o.GitTag) {
		return nil, fmt.Errorf("git tag %q: want letters, digits and . + _ -", o.GitTag)
	}
	if !revRe.MatchString(o.GitRev) {
		return nil, fmt.Errorf("git rev %q: want letters and digits", o.GitRev)
	}
	if o.Epoch <= 0 {
		return nil, errors.New("epoch: want the commit time in Unix seconds")
	}
	targets := o.Targets
	if targets == nil {
		targets = Targets
	}
	if len(targets) == 0 {
		return nil, errors.New("no target")
	}
	goCmd := o.Go
	if goCmd == "" {
		goCmd = "go"
	}
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	// Read the files once: every tarball then carries the same bytes.
	contents := make(map[string][]byte, len(Files))
	for _, f := range Files {
		b, err := os.ReadFile(filepath.Join(o.Root, filepath.FromSlash(f)))
		if err != nil {
			return nil, fmt.Errorf("release file: %w", err)
		}
		contents[f] = b
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "adb-connector-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	mtime := time.Unix(o.Epoch, 0).UTC()
	ldflags := strings.Join([]string{
		// No symbol table or DWARF: a third smaller; panics still print
		// symbolized stacks (those come from the pcln table, which stays).
		"-s", "-w",
		"-X", buildinfoPkg + ".Version=" + o.Version,
		"-X", buildinfoPkg + ".GitTag=" + o.GitTag,
		"-X", buildinfoPkg + ".GitRev=" + o.GitRev,
		"-X", buildinfoPkg + ".BuildTime=" + BuildTime(o.Epoch),
	}, " ")
	var arts []Artifact
	for _, t := range targets {
		bin := filepath.Join(work, t.OS+"-"+t.Arch, Name)
		fmt.Fprintf(logw, "building %s\n", t)
		cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-buildvcs=false",
			"-ldflags", ldflags, "-o", bin, "./cmd/adb-connector")
		cmd.Dir = o.Root
		// The builder's own settings must not change the bytes: no cgo (the
		// SQLite driver is pure Go, and cross builds need no C toolchain),
		// the baseline CPU level of each architecture (lab hosts are of any
		// age), no GOFLAGS.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch,
			"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=")
		cmd.Env = append(cmd.Env, o.Env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %w\n%s", t, err, out)
		}
		binBytes, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		top := strings.TrimSuffix(TarballName(o.Version, t), ".tar.gz")
		data, err := tarball(top, mtime, binBytes, contents)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t, err)
		}
		a, err := write(o.Out, TarballName(o.Version, t), data)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(logw, "wrote %s (%d bytes)\n", filepath.Join(o.Out, a.Name), a.Size)
		arts = append(arts, a)
	}
	slices.SortFunc(arts, func(a, b Artifact) int { return strings.Compare(a.Name, b.Name) })
	var sums bytes.Buffer
	for _, a := range arts {
		// Two spaces: binary and text mode are the same on Unix, and both
		// sha256sum -c and shasum -a 256 -c read this form.
		fmt.Fprintf(&sums, "%s  %s\n", a.SHA256, a.Name)
	}
	s, err := write(o.Out, SumsFile, sums.Bytes())
	if err != nil {
		return nil, err
	}
	return append(arts, s), nil
}

// Entry is one file or directory of a tarball, as tarball writes it.
type Entry struct {
	Name string // slash-separated, directories end in "/"
	Mode int64
}

// Entries lists, in archive order, what the tarball under top holds.
func Entries(top string) []Entry {
	seen := map[string]bool{}
	var es []Entry
	add := func(name string, mode int64) {
		if !seen[name] {
			seen[name] = true
			es = append(es, Entry{name, mode})
		}
	}
	add(top+"/", 0o755)
	add(top+"/"+Name, 0o755)
	for _, f := range Files {
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			add(top+"/"+d+"/", 0o755)
		}
		add(top+"/"+f, 0o644)
	}
	// Sorted by name: the order never depends on Files' order or the file
	// system, and a directory ("x/") sorts before everything under it.
	slices.SortFunc(es, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return es
}

// tarball returns the .tar.gz of the binary and Files under directory top.
func tarball(top string, mtime time.Time, bin []byte, contents map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	// Header left zero: no name and no mtime, so the gzip bytes depend on
	// the tar bytes only.
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for _, e := range Entries(top) {
		hdr := &tar.Header{
			Name:    e.Name,
			Mode:    e.Mode,
			ModTime: mtime,
			// Root-owned with no user or group names: unpacked by root the
			// files are root's, by anyone else theirs; no builder's
			// account leaks into the archive.
			Uid:    0,
			Gid:    0,
			Format: tar.FormatUSTAR, // no PAX records (atime, ctime) that could vary
		}
		var body []byte
		switch rel := strings.TrimPrefix(e.Name, top+"/"); {
		case strings.HasSuffix(e.Name, "/"):
			hdr.Typeflag = tar.TypeDir
		case rel == Name:
			hdr.Typeflag, body = tar.TypeReg, bin
		default:
			b, ok := contents[rel]
			if !ok {
				return nil, fmt.Errorf("no content for %s", rel)
			}
			hdr.Typeflag, body = tar.TypeReg, b
		}
		hdr.Size = int64(len(body))
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// write writes data to dir/name through a temporary file, so that an
// interrupted release never leaves a truncated tarball under its real name.
func write(dir, name string, data []byte) (Artifact, error) {
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return Artifact{}, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return Artifact{}, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return Artifact{}, err
	}
	if err := tmp.Close(); err != nil {
		return Artifact{}, err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return Artifact{}, err
	}
	sum := sha256.Sum256(data)
	return Artifact{Name: name, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}, nil
}
