package files

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/store"
)

// Defaults for the zero fields of [Config].
const (
	DefaultTTL             = 10 * time.Minute
	DefaultMaxTotalBytes   = 512 << 20
	DefaultMaxFileBytes    = 256 << 20
	DefaultJanitorInterval = time.Minute
	// DefaultDirName is the folder inside the database's directory used when
	// Config.Dir is empty.
	DefaultDirName = "files"
	tmpDirName     = "tmp"
)

var (
	// ErrNotFound: the ref is malformed, unknown, expired or evicted.
	ErrNotFound = errors.New("file not found")
	// ErrForbidden: the ref belongs to another channel.
	ErrForbidden = errors.New("file belongs to another channel")
	// ErrClosed: the Store was closed.
	ErrClosed = errors.New("file store closed")
)

// TooLargeError is returned by [Store.Put] for a file over the per-file limit
// (the smaller of MaxFileBytes and MaxTotalBytes). Nothing is stored.
type TooLargeError struct {
	Limit int64 // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("file larger than the %d-byte limit", e.Limit)
}

// Config configures a [Store]. The zero value is usable; each field documents
// its default.
type Config struct {
	// Dir holds the bytes, one file per ref (mode 0600); it is created, or
	// an existing one tightened, to mode 0700.
	// Default: "files" next to the database file.
	Dir string
	// TTL is how long a file can be downloaded. Default 10m.
	TTL time.Duration
	// MaxTotalBytes caps all stored files; the oldest are evicted to make
	// room for a new one. Default 512 MiB.
	MaxTotalBytes int64
	// MaxFileBytes refuses larger files with *TooLargeError. Default 256 MiB.
	MaxFileBytes int64
	// JanitorInterval is how often expired files and orphans are removed.
	// Default 1m; a negative value disables the janitor goroutine (the sweep
	// at Open still runs).
	JanitorInterval time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives Debug lines for expected events and Warn/Error lines
	// for failures. Refs appear only as a short prefix. Default: discard.
	Logger *slog.Logger
}

func (c *Config) setDefaults(db *store.DB) {
	if c.Dir == "" {
		c.Dir = filepath.Join(filepath.Dir(db.Path), DefaultDirName)
	}
	if c.TTL <= 0 {
		c.TTL = DefaultTTL
	}
	if c.MaxTotalBytes <= 0 {
		c.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if c.MaxFileBytes <= 0 {
		c.MaxFileBytes = DefaultMaxFileBytes
	}
	if c.JanitorInterval == 0 {
		c.JanitorInterval = DefaultJanitorInterval
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Store keeps files for download. All methods are safe for concurrent use.
type Store struct {
	db      *store.DB
	cfg     Config
	log     *slog.Logger
	tmpDir  string
	metrics *metrics

	// mu serialises every change of the index together with the matching
	// file-system change (commit, eviction, expiry, orphan sweep), so a sweep
	// never sees a renamed file whose row is not yet written. Downloads do not
	// take it: a file removed while it is being served stays readable through
	// its open handle.
	mu         sync.Mutex
	totalBytes int64     // guarded by mu; the file count is len(idx)
	insert     *sql.Stmt // INSERT INTO files, prepared once; used under mu

	// idx mirrors the live rows of the files table so a download needs no
	// database round trip. It changes only under mu, right after the
	// matching committed change of the table (Put, removeLocked), and is
	// rebuilt from the table by every Sweep, Open's included, so it
	// survives a restart through the database. idxMu lets downloads read
	// it without taking mu.
	idxMu sync.RWMutex
	idx   map[string]entry // guarded by idxMu

	stop      context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
	closed    chan struct{}
}

// Open prepares the directory, runs one sweep (expired rows, orphan files,
// rows whose file is missing or truncated, leftovers of interrupted writes)
// and starts the janitor. The Store does not own db; close the Store first.
func Open(ctx context.Context, db *store.DB, cfg Config) (*Store, error) {
	cfg.setDefaults(db)
	s := &Store{
		db:      db,
		cfg:     cfg,
		log:     cfg.Logger.With("component", "files"),
		tmpDir:  filepath.Join(cfg.Dir, tmpDirName),
		metrics: newMetrics(),
		idx:     map[string]entry{},
		done:    make(chan struct{}),
		closed:  make(chan struct{}),
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("open file store: %w", err)
	}
	// MkdirAll leaves an existing directory's mode alone; the files in it
	// are 0600 (os.CreateTemp), but a 0755 directory would still list their
	// names, and each name is a ref: the credential for its download.
	if err := os.Chmod(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("open file store: %w", err)
	}
	// Nothing writes to tmp before Open returns: whatever is there is left
	// over from a crash.
	if err := os.RemoveAll(s.tmpDir); err != nil {
		return nil, fmt.Errorf("open file store: clear %s: %w", s.tmpDir, err)
	}
	if err := os.Mkdir(s.tmpDir, 0o700); err != nil {
		return nil, fmt.Errorf("open file store: %w", err)
	}
	insert, err := db.Write.PrepareContext(ctx, `INSERT INTO files
		(file_ref, channel_id, mime_type, filename, byte_size, width, height, created_at_ms, expires_at_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("open file store: %w", err)
	}
	s.insert = insert
	if err := s.Sweep(ctx); err != nil {
		insert.Close()
		return nil, fmt.Errorf("open file store: %w", err)
	}
	jctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	if cfg.JanitorInterval > 0 {
		go s.janitor(jctx, cfg.JanitorInterval)
	} else {
		close(s.done)
	}
	return s, nil
}

// Close stops the janitor and waits for it. It is idempotent. Put fails with
// ErrClosed afterwards; lookups and downloads keep working while db is open.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.stop()
		<-s.done
		// Put checks closed under mu before using the statement.
		s.mu.Lock()
		s.insert.Close()
		s.mu.Unlock()
	})
	return nil
}

func (s *Store) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// limit is the largest file Put accepts.
func (s *Store) limit() int64 {
	return min(s.cfg.MaxFileBytes, s.cfg.MaxTotalBytes)
}

// PutBytes is Put for a file already in memory: the bytes go to the file in
// one write, with no intermediate copy.
func (s *Store) PutBytes(ctx context.Context, channelID string, meta Meta, b []byte) (Ref, error) {
	return s.put(ctx, channelID, meta, func(f *os.File, limit int64) (int64, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if int64(len(b)) > limit {
			return int64(len(b)), nil // refused by put, nothing written
		}
		n, err := f.Write(b)
		return int64(n), err
	})
}

// Put stores the bytes of r for channelID and returns the file's Ref. The
// file becomes visible only once complete (written to a temporary file, then
// renamed). Older files are evicted when the total would exceed
// MaxTotalBytes. A file over the per-file limit fails with *TooLargeError.
// Reading r stops when ctx is done.
func (s *Store) Put(ctx context.Context, channelID string, meta Meta, r io.Reader) (Ref, error) {
	return s.put(ctx, channelID, meta, func(f *os.File, limit int64) (int64, error) {
		return io.Copy(f, io.LimitReader(ctxReader{ctx, r}, limit+1))
	})
}

// put is Put with write filling the temporary file: it returns how many
// bytes the file has (more than limit, written or not, refuses it).
func (s *Store) put(ctx context.Context, channelID string, meta Meta, write func(f *os.File, limit int64) (int64, error)) (Ref, error) {
	if channelID == "" {
		return Ref{}, errors.New("store file: empty channel id")
	}
	if s.isClosed() {
		return Ref{}, ErrClosed
	}
	tmp, err := os.CreateTemp(s.tmpDir, "put-*")
	if err != nil {
		return Ref{}, fmt.Errorf("store file: %w", err)
	}
	tmpName := tmp.Name()
	committed := false
	defer func() {
		if !committed {
			os.Remove(tmpName)
		}
	}()
	limit := s.limit()
	n, err := write(tmp, limit)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Ref{}, fmt.Errorf("store file: %w", err)
	}
	if n > limit {
		return Ref{}, &TooLargeError{Limit: limit}
	}

	mimeType := cleanMIMEType(meta.MIMEType)
	ref := Ref{
		FileRef:  newRef(),
		MIMEType: mimeType,
		ByteSize: n,
		Width:    max(meta.Width, 0),
		Height:   max(meta.Height, 0),
	}
	ref.DownloadURL = DownloadPrefix + ref.FileRef
	ref.Filename = cleanFilename(meta.Filename, mimeType)

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed() {
		return Ref{}, ErrClosed
	}
	if err := s.evictFor(ctx, n); err != nil {
		return Ref{}, fmt.Errorf("store file: %w", err)
	}
	now := s.cfg.Now()
	// Millisecond precision, as stored and as sent in expires_at.
	ref.ExpiresAt = time.UnixMilli(now.Add(s.cfg.TTL).UnixMilli())
	path := s.path(ref.FileRef)
	if err := os.Rename(tmpName, path); err != nil {
		return Ref{}, fmt.Errorf("store file: %w", err)
	}
	committed = true
	// No fsync: after a crash the sweep at Open drops rows whose file is
	// missing or shorter than byte_size.
	_, err = s.insert.ExecContext(ctx, ref.FileRef, channelID, ref.MIMEType, ref.Filename, ref.ByteSize, ref.Width, ref.Height,
		now.UnixMilli(), ref.ExpiresAt.UnixMilli())
	if err != nil {
		os.Remove(path)
		return Ref{}, fmt.Errorf("store file: index: %w", err)
	}
	s.idxMu.Lock()
	s.idx[ref.FileRef] = entry{Ref: ref, channelID: channelID, createdAt: time.UnixMilli(now.UnixMilli())}
	s.idxMu.Unlock()
	s.totalBytes += n
	s.publishTotalsLocked()
	s.log.Debug("file stored", "file_ref", redactRef(ref.FileRef), "channel", channelID,
		"mime_type", ref.MIMEType, "bytes", n)
	return ref, nil
}

// entry is an index row.
type entry struct {
	Ref
	channelID string
	createdAt time.Time
}

// lookup returns the index entry of a live ref, or ErrNotFound.
func (s *Store) lookup(ref string) (entry, error) {
	if !ValidRef(ref) {
		return entry{}, ErrNotFound
	}
	s.idxMu.RLock()
	e, ok := s.idx[ref]
	s.idxMu.RUnlock()
	if !ok || !s.cfg.Now().Before(e.ExpiresAt) {
		return entry{}, ErrNotFound
	}
	return e, nil
}

// Get opens a stored file for reading. When channelID is not empty, a file of
// another channel fails with ErrForbidden. An unknown, expired, evicted or
// malformed ref fails with ErrNotFound. The caller closes the file.
func (s *Store) Get(ctx context.Context, fileRef, channelID string) (Ref, *os.File, error) {
	if err := ctx.Err(); err != nil {
		return Ref{}, nil, fmt.Errorf("look up file: %w", err)
	}
	e, err := s.lookup(fileRef)
	if err != nil {
		return Ref{}, nil, err
	}
	if channelID != "" && channelID != e.channelID {
		return Ref{}, nil, ErrForbidden
	}
	f, err := os.Open(s.path(fileRef))
	if errors.Is(err, os.ErrNotExist) {
		return Ref{}, nil, ErrNotFound
	}
	if err != nil {
		return Ref{}, nil, fmt.Errorf("open file: %w", err)
	}
	return e.Ref, f, nil
}

// DeleteChannel removes every file of channelID (for a released channel).
func (s *Store) DeleteChannel(ctx context.Context, channelID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	refs, err := s.queryVictims(ctx, `SELECT file_ref, byte_size FROM files WHERE channel_id = ?`, channelID)
	if err != nil {
		return fmt.Errorf("delete channel files: %w", err)
	}
	if err := s.removeLocked(ctx, refs); err != nil {
		return fmt.Errorf("delete channel files: %w", err)
	}
	if len(refs) > 0 {
		s.log.Debug("channel files deleted", "channel", channelID, "files", len(refs))
	}
	return nil
}

func (s *Store) path(ref string) string {
	return filepath.Join(s.cfg.Dir, ref)
}

// ctxReader stops a copy when its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
