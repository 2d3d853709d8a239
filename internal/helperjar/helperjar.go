// Package helperjar assembles the phone helper's smali source (adb/helper/
// smali) into the jar app_process runs: Debian's smali (package
// libsmali-java) writes classes.dex, and the jar is a zip holding only it,
// stored uncompressed with a fixed timestamp, so that the same source
// gives the same bytes on every machine and every Go version (a deflate
// stream could change with the compressor). scripts/helperjar writes the
// committed jar with it; a test in adb/helper rebuilds it and compares.
package helperjar

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// InstallHint says how to get the tools when smali is missing.
const InstallHint = "install Debian's smali with scripts/ensure-helper-tools.sh (or: sudo apt-get install -y libsmali-java)"

// ErrNoSmali reports that the smali command is not installed.
var ErrNoSmali = errors.New("smali not found: " + InstallHint)

// API is the dex API level passed to smali: dex format 035, which every
// Android release the helper supports reads.
const API = 21

// epoch is the timestamp of the one zip entry (zip's MS-DOS time has no
// zone and starts in 1980).
var epoch = time.Date(2008, 1, 1, 0, 0, 0, 0, time.UTC)

// Dex assembles every .smali file under dir into one classes.dex. One job
// (-j 1) so that nothing depends on thread scheduling.
func Dex(ctx context.Context, dir string) ([]byte, error) {
	bin, err := exec.LookPath("smali")
	if err != nil {
		return nil, ErrNoSmali
	}
	tmp, err := os.MkdirTemp("", "helperjar")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "classes.dex")
	cmd := exec.CommandContext(ctx, bin, "assemble", "-j", "1", "-a", fmt.Sprint(API), "-o", out, dir)
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("smali assemble %s: %w: %s", dir, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return os.ReadFile(out)
}

// Jar wraps dex in the helper's jar: one stored entry, classes.dex.
func Jar(dex []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "classes.dex", Method: zip.Store, Modified: epoch}
	w, err := zw.CreateHeader(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(dex); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Build assembles dir and returns the jar's bytes.
func Build(ctx context.Context, dir string) ([]byte, error) {
	dex, err := Dex(ctx, dir)
	if err != nil {
		return nil, err
	}
	return Jar(dex)
}

// ClassesDex returns the classes.dex inside a helper jar (app_process reads
// the same entry).
func ClassesDex(jar []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(jar), int64(len(jar)))
	if err != nil {
		return nil, fmt.Errorf("helper jar: %w", err)
	}
	for _, f := range zr.File {
		if f.Name != "classes.dex" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("helper jar: %w", err)
		}
		defer rc.Close()
		var b bytes.Buffer
		if _, err := b.ReadFrom(rc); err != nil {
			return nil, fmt.Errorf("helper jar: %w", err)
		}
		return b.Bytes(), nil
	}
	return nil, errors.New("helper jar: no classes.dex")
}
