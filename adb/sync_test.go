package adb

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"testing"
	"testing/iotest"
)

// eofReader returns all its data together with io.EOF in one Read, the case
// gadb's Push dropped.
type eofReader struct{ data []byte }

func (r *eofReader) Read(p []byte) (int, error) {
	n := copy(p, r.data)
	r.data = r.data[n:]
	if len(r.data) == 0 {
		return n, io.EOF
	}
	return n, nil
}

func TestPushPullStat(t *testing.T) {
	_, td, d := shellEnv(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320 KB, several chunks
	tests := []struct {
		name string
		r    io.Reader
		want []byte
	}{
		{"data with EOF (gadb drop)", &eofReader{data: []byte("hello")}, []byte("hello")},
		{"one byte reader", iotest.OneByteReader(bytes.NewReader([]byte("abc"))), []byte("abc")},
		{"big data with EOF", &eofReader{data: big}, big},
		{"empty", bytes.NewReader(nil), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := "/sdcard/" + tt.name
			if err := d.Push(t.Context(), tt.r, p, 0o640); err != nil {
				t.Fatal(err)
			}
			got, _ := td.backend.Files().ReadFile(p)
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("device has %d bytes, want %d", len(got), len(tt.want))
			}
			var buf bytes.Buffer
			if err := d.Pull(t.Context(), p, &buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), tt.want) {
				t.Fatalf("pulled %d bytes, want %d", buf.Len(), len(tt.want))
			}
			fi, err := d.Stat(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.Mode.IsRegular() || fi.Mode.Perm() != 0o640 || fi.Size != int64(len(tt.want)) {
				t.Errorf("stat = %+v (%s)", fi, fi.Mode)
			}
			if fi.Mode.FS() != 0o640 {
				t.Errorf("FS mode = %v", fi.Mode.FS())
			}
		})
	}
}

func TestPullMissing(t *testing.T) {
	_, _, d := shellEnv(t)
	err := d.Pull(t.Context(), "/sdcard/nope", io.Discard)
	if !errors.Is(err, ErrNotExist) {
		t.Fatalf("err = %v, want ErrNotExist", err)
	}
	if _, err := d.Stat(t.Context(), "/sdcard/nope"); !errors.Is(err, ErrNotExist) {
		t.Fatalf("stat err = %v", err)
	}
}

// gadb defects: listing a missing directory returned no error, and modes
// were raw unix modes in an os.FileMode.
func TestList(t *testing.T) {
	_, td, d := shellEnv(t)
	fsys := td.backend.Files()
	_ = fsys.WriteFile("/sdcard/a.txt", []byte("aa"), 0o644, timeZero)
	_ = fsys.WriteFile("/sdcard/sub/b.txt", []byte("b"), 0o600, timeZero)
	td.backend.files["/sdcard/sub"] = fakeFile{mode: 0o040755}
	list, err := d.List(t.Context(), "/sdcard")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]fs.FileMode{}
	for _, fi := range list {
		got[fi.Name] = fi.Mode.FS()
	}
	if got["a.txt"] != 0o644 || got["sub"] != fs.ModeDir|0o755 || len(got) != 2 {
		t.Errorf("list = %v", got)
	}
	if _, err := d.List(t.Context(), "/sdcard/missing"); !errors.Is(err, ErrNotExist) {
		t.Errorf("missing dir: err = %v, want ErrNotExist", err)
	}
	if _, err := d.List(t.Context(), "/sdcard/a.txt"); err == nil {
		t.Errorf("listing a file: no error")
	}
}

func TestFileModeFS(t *testing.T) {
	tests := []struct {
		raw  FileMode
		want fs.FileMode
	}{
		{0o100644, 0o644},
		{0o040755, fs.ModeDir | 0o755},
		{0o120777, fs.ModeSymlink | 0o777},
		{0o020666, fs.ModeDevice | fs.ModeCharDevice | 0o666},
	}
	for _, tt := range tests {
		t.Run(tt.want.String(), func(t *testing.T) {
			if got := tt.raw.FS(); got != tt.want {
				t.Errorf("FS(%o) = %v, want %v", uint32(tt.raw), got, tt.want)
			}
		})
	}
}
