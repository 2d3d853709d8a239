package phonefw

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
)

// ErrNoTools reports that java, javac or enjarify is missing: the helper
// cannot run on this host (a virtual phone then fails app_process as a
// phone does where the helper cannot start).
var ErrNoTools = errors.New("phonefw: java, javac and enjarify are needed (scripts/ensure-helper-tools.sh)")

// ErrSDK reports an SDK level below MinSDK.
var ErrSDK = errors.New("phonefw: SDK level not modeled")

// Tools finds the host programs the package runs; ErrNoTools when one is
// missing.
func Tools() error {
	for _, t := range []string{"java", "javac", "enjarify"} {
		if _, err := exec.LookPath(t); err != nil {
			return ErrNoTools
		}
	}
	return nil
}

// cacheDir is where compiled frameworks and translated helpers are kept
// between test runs, by content hash.
func cacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	d := filepath.Join(base, "adb-connector", "phonefw")
	return d, os.MkdirAll(d, 0o755)
}

var buildMu sync.Mutex

// Framework compiles the fake framework for sdk (once per content; cached
// on disk) and returns its class directory.
func Framework(ctx context.Context, sdk int) (string, error) {
	if sdk < MinSDK {
		return "", fmt.Errorf("%w: %d (from %d)", ErrSDK, sdk, MinSDK)
	}
	if err := Tools(); err != nil {
		return "", err
	}
	src, err := Source(sdk)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(src))
	for n := range src {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%s\x00", n, src[n])
	}
	base, err := cacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, fmt.Sprintf("fw-sdk%d-%s", sdk, hex.EncodeToString(h.Sum(nil))[:16]))
	buildMu.Lock()
	defer buildMu.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "android", "app", "UiAutomation.class")); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(base, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	srcDir, classes := filepath.Join(tmp, "src"), filepath.Join(tmp, "classes")
	args := []string{"-nowarn", "-encoding", "UTF-8", "--release", "11", "-d", classes}
	for _, n := range names {
		p := filepath.Join(srcDir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(src[n]), 0o644); err != nil {
			return "", err
		}
		args = append(args, p)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "javac", args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("phonefw: javac sdk %d: %w: %s", sdk, err, out.Bytes())
	}
	// Another process may have built the same content meanwhile: either copy will do.
	if err := os.Rename(classes, dir); err != nil {
		if _, serr := os.Stat(dir); serr != nil {
			return "", err
		}
	}
	return dir, nil
}

// Translate turns a classes.dex into a JVM jar with enjarify (cached by
// the dex's hash) and returns the jar's path.
func Translate(ctx context.Context, dex []byte) (string, error) {
	if err := Tools(); err != nil {
		return "", err
	}
	base, err := cacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(dex)
	jar := filepath.Join(base, "helper-"+hex.EncodeToString(sum[:])[:16]+".jar")
	buildMu.Lock()
	defer buildMu.Unlock()
	if _, err := os.Stat(jar); err == nil {
		return jar, nil
	}
	tmp, err := os.MkdirTemp(base, "enjarify-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	in := filepath.Join(tmp, "classes.dex")
	if err := os.WriteFile(in, dex, 0o644); err != nil {
		return "", err
	}
	outJar := filepath.Join(tmp, "out.jar")
	cmd := exec.CommandContext(ctx, "enjarify", "-o", outJar, in)
	// Debian's enjarify runs the first python3 on PATH, which must be the
	// one its module is installed for: prefer the system's.
	cmd.Env = os.Environ()
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		cmd.Env = append(cmd.Env, "PYTHON=/usr/bin/python3")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("phonefw: enjarify: %w: %s", err, out.Bytes())
	}
	if !bytes.Contains(out.Bytes(), []byte(" 0 classes had errors")) {
		return "", fmt.Errorf("phonefw: enjarify: %s", out.Bytes())
	}
	if err := os.Rename(outJar, jar); err != nil {
		return "", err
	}
	return jar, nil
}
