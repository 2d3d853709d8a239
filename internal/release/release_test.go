package release

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/internal/buildinfo"
)

// Cross builds are the cost of this test (a cold one takes a minute on two
// cores), so by default it builds the host and one other target, once;
// make release-check passes -all-targets: every target, twice, compared.
var allTargets = flag.Bool("all-targets", false, "build every release target, not only the host and one other")

func testTargets() []Target {
	if *allTargets {
		return Targets
	}
	host := Target{runtime.GOOS, runtime.GOARCH}
	// The other OS when the host is one of the two: that is what breaks
	// (a Linux-only syscall in a file without a build constraint).
	other := Target{"darwin", "arm64"}
	if host.OS == "darwin" {
		other = Target{"linux", "amd64"}
	}
	return []Target{host, other}
}

// releaseRun is one build of the release test. independent: from a copy
// of the sources elsewhere (what -trimpath is for) and with an empty build
// cache (else go build hands back the earlier build's binaries), as
// whoever checks a release builds it.
type releaseRun struct{ independent bool }

// releaseRuns are the builds of the release test: with all, two (the
// second independent) whose bytes must be equal.
func releaseRuns(all bool) []releaseRun {
	if all {
		return []releaseRun{{}, {independent: true}}
	}
	return []releaseRun{{}}
}

// TestReleasePlan: make test (no -all-targets) builds once, for the host
// (to run version) and one other target: a cross build on a cold cache
// takes over a minute on two cores, and make test runs on fresh machines.
// The double, byte-compared build is make release-check's.
func TestReleasePlan(t *testing.T) {
	if runs := releaseRuns(false); len(runs) != 1 {
		t.Errorf("make test builds the release %d times, want once", len(runs))
	}
	host := Target{runtime.GOOS, runtime.GOARCH}
	if tg := testTargets(); !*allTargets && (len(tg) != 2 || tg[0] != host || tg[1] == host) {
		t.Errorf("targets %v, want the host and one other", tg)
	}
	if runs := releaseRuns(true); len(runs) != 2 || runs[0].independent || !runs[1].independent {
		t.Errorf("release-check runs %+v, want a build then an independent one", runs)
	}
}

func TestRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary for two platforms")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	opts := Options{
		Root:    root,
		Version: "1.2.3-test",
		GitTag:  "v1.2.3-test",
		GitRev:  "0123abc",
		Epoch:   time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Unix(),
		Targets: testTargets(),
		Go:      goCmd,
	}
	runs := releaseRuns(*allTargets)
	outs := make([]string, len(runs))
	arts := make([][]Artifact, len(runs))
	for i, r := range runs {
		o := opts
		o.Out = filepath.Join(t.TempDir(), "dist")
		if r.independent {
			o.Root = copySources(t, root)
			o.Env = []string{"GOCACHE=" + t.TempDir()}
		}
		a, err := Build(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		outs[i], arts[i] = o.Out, a
	}

	t.Run("reproducible", func(t *testing.T) {
		if len(runs) < 2 {
			t.Skip("one build: make release-check builds twice and compares")
		}
		if !slices.Equal(arts[0], arts[1]) {
			t.Fatalf("two builds differ:\n%v\n%v", arts[0], arts[1])
		}
		for _, a := range arts[0] {
			b0, _ := os.ReadFile(filepath.Join(outs[0], a.Name))
			b1, _ := os.ReadFile(filepath.Join(outs[1], a.Name))
			if !bytes.Equal(b0, b1) {
				t.Errorf("%s: the two builds' bytes differ", a.Name)
			}
			t.Logf("%s %d bytes sha256 %s", a.Name, a.Size, a.SHA256)
		}
	})

	t.Run("SHA256SUMS", func(t *testing.T) {
		var want []string
		for _, tg := range opts.Targets {
			want = append(want, TarballName(opts.Version, tg))
		}
		slices.Sort(want)
		sums, err := os.ReadFile(filepath.Join(outs[0], SumsFile))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		sc := bufio.NewScanner(bytes.NewReader(sums))
		for sc.Scan() {
			sum, name, ok := strings.Cut(sc.Text(), "  ")
			if !ok {
				t.Fatalf("line %q: want <sha256>  <name>", sc.Text())
			}
			names = append(names, name)
			i := slices.IndexFunc(arts[0], func(a Artifact) bool { return a.Name == name })
			if i < 0 || arts[0][i].SHA256 != sum {
				t.Errorf("%s: sum %s does not match the file", name, sum)
			}
		}
		if !slices.Equal(names, want) {
			t.Errorf("SHA256SUMS lists %v, want %v", names, want)
		}
		// The tool the README tells operators to verify with, where present.
		if sha, err := exec.LookPath("sha256sum"); err == nil {
			cmd := exec.Command(sha, "-c", SumsFile)
			cmd.Dir = outs[0]
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("sha256sum -c: %v\n%s", err, out)
			}
		}
	})

	for _, tg := range opts.Targets {
		t.Run(tg.OS+"-"+tg.Arch, func(t *testing.T) {
			name := TarballName(opts.Version, tg)
			top := strings.TrimSuffix(name, ".tar.gz")
			dir := t.TempDir()
			got := unpack(t, filepath.Join(outs[0], name), dir, opts.Epoch)
			if want := Entries(top); !slices.Equal(got, want) {
				t.Fatalf("entries\n got %v\nwant %v", got, want)
			}
			for _, f := range Files {
				b, err := os.ReadFile(filepath.Join(dir, top, filepath.FromSlash(f)))
				if err != nil {
					t.Fatal(err)
				}
				src, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
				if !bytes.Equal(b, src) {
					t.Errorf("%s differs from the repository's", f)
				}
			}
			if tg.OS != runtime.GOOS || tg.Arch != runtime.GOARCH {
				return
			}
			bin := filepath.Join(dir, top, Name)
			out, err := exec.Command(bin, "version").Output()
			if err != nil {
				t.Fatalf("version: %v", err)
			}
			wantLine := "adb-connector 1.2.3-test (tag v1.2.3-test, rev 0123abc, built 2601020304)\n"
			if string(out) != wantLine {
				t.Errorf("version printed %q, want %q", out, wantLine)
			}
			out, err = exec.Command(bin, "version", "--json").Output()
			if err != nil {
				t.Fatalf("version --json: %v", err)
			}
			var info buildinfo.Info
			if err := json.Unmarshal(out, &info); err != nil {
				t.Fatalf("version --json: %v: %s", err, out)
			}
			want := buildinfo.Info{Version: opts.Version, GitTag: opts.GitTag, GitRev: opts.GitRev,
				BuildTime: BuildTime(opts.Epoch)}
			if info != want {
				t.Errorf("version --json = %+v, want %+v", info, want)
			}
		})
	}
}

// unpack extracts the tarball into dir, checking the fixed metadata of the
// gzip header and every entry, and returns the entries in archive order.
func unpack(t *testing.T, tarball, dir string, epoch int64) []Entry {
	t.Helper()
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header records name %q, mtime %v", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var es []Entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, Entry{h.Name, h.Mode})
		if h.ModTime.Unix() != epoch || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: mtime %v uid %d gid %d %q/%q; want the commit time, 0/0, no names",
				h.Name, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if !filepath.IsLocal(h.Name) {
			t.Fatalf("entry %q outside the directory", h.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, os.FileMode(h.Mode)); err != nil {
				t.Fatal(err)
			}
		default:
			t.Errorf("%s: type %c, want a file or directory", h.Name, h.Typeflag)
		}
	}
	return es
}

// copySources copies the files git would commit (tracked, or new and not
// ignored) from root into a new directory, and returns it.
func copySources(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := t.TempDir()
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, filepath.FromSlash(name))
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in git
		}
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
