package files

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

// TestPutAndPutBytesAgree: the reader and the in-memory paths store the
// same bytes and refuse the same way (canceled context, too large), leaving
// no temporary file behind.
func TestPutAndPutBytesAgree(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	puts := map[string]func(e *env, ctx context.Context, b []byte) (Ref, error){
		"Put": func(e *env, ctx context.Context, b []byte) (Ref, error) {
			return e.st.Put(ctx, "ch", Meta{}, bytes.NewReader(b))
		},
		"PutBytes": func(e *env, ctx context.Context, b []byte) (Ref, error) {
			return e.st.PutBytes(ctx, "ch", Meta{}, b)
		},
	}
	tests := []struct {
		name    string
		ctx     context.Context
		data    string
		wantErr func(error) bool
	}{
		{"stored", context.Background(), "0123456789", nil},
		{"empty", context.Background(), "", nil},
		{"canceled", canceled, "data", func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"too large", context.Background(), "01234567890", func(err error) bool {
			var tl *TooLargeError
			return errors.As(err, &tl) && tl.Limit == 10
		}},
	}
	for name, put := range puts {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t, Config{MaxFileBytes: 10})
				ref, err := put(e, tt.ctx, []byte(tt.data))
				if tt.wantErr != nil {
					if !tt.wantErr(err) {
						t.Fatalf("err = %v", err)
					}
					assertDirEntries(t, e.st.cfg.Dir, []string{tmpDirName})
					assertDirEntries(t, e.st.tmpDir, nil)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				_, f, err := e.st.Get(context.Background(), ref.FileRef, "ch")
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				got, err := io.ReadAll(f)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tt.data || ref.ByteSize != int64(len(tt.data)) {
					t.Fatalf("stored %q (byte_size %d), want %q", got, ref.ByteSize, tt.data)
				}
				assertDirEntries(t, e.st.tmpDir, nil)
			})
		}
	}
}
