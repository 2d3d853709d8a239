package policy

import (
	"context"
	"log/slog"
	"os"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// Holder keeps the Config in force. The zero value holds none (nil: every
// tool offered, nothing capped). Safe for concurrent use.
type Holder struct {
	cur atomic.Pointer[Config]
}

// NewHolder returns a Holder with c in force.
func NewHolder(c *Config) *Holder {
	h := &Holder{}
	h.cur.Store(c)
	return h
}

// Current returns the Config in force; nil for a nil Holder.
func (h *Holder) Current() *Config {
	if h == nil {
		return nil
	}
	return h.cur.Load()
}

// For is Current().For(d).
func (h *Holder) For(d Device) *Effective { return h.Current().For(d) }

// DefaultPollInterval is how often a Reloader looks at the file's mtime.
const DefaultPollInterval = 2 * time.Second

// Reloader replaces a Holder's Config when the file changes (its mtime or
// size) or on demand (SIGHUP). A file that does not parse is refused: the
// Config in force stays and the error is logged once, until the file
// changes again. Safe for concurrent use.
type Reloader struct {
	Path    string
	Holder  *Holder
	Options Options
	Log     *slog.Logger
	// OnApply runs after a new Config is in force (the Profile re-pushes
	// Descriptors whose tool set changed).
	OnApply func(old, cur *Config)

	mu        sync.Mutex
	stamp     fileStamp
	lastErr   string
	errAt     time.Time
	appliedAt time.Time
}

// ReloadStatus is how the last reload went, for the operator to see.
type ReloadStatus struct {
	// Error is why the last reload was refused ("" when it applied or
	// none ran); the Config in force is then the one before.
	Error string
	// ErrorAt is when Error was first met; AppliedAt is when a file was
	// last applied (both zero when no reload ran).
	ErrorAt, AppliedAt time.Time
}

// Status returns how the last reload went.
func (r *Reloader) Status() ReloadStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return ReloadStatus{Error: r.lastErr, ErrorAt: r.errAt, AppliedAt: r.appliedAt}
}

type fileStamp struct {
	mod  time.Time
	size int64
}

func stampOf(name string) fileStamp {
	fi, err := os.Stat(name)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{fi.ModTime(), fi.Size()}
}

// Reload reads the file now and applies it when valid; it returns the
// parse error of a refused file.
func (r *Reloader) Reload() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stamp = stampOf(r.Path)
	c, err := Load(r.Path, r.Options)
	if err != nil {
		if msg := err.Error(); msg != r.lastErr {
			r.lastErr, r.errAt = msg, time.Now()
			r.log().Error("config file refused; the previous one stays in force", "path", r.Path, "err", err)
		}
		return err
	}
	r.lastErr, r.errAt, r.appliedAt = "", time.Time{}, time.Now()
	old := r.Holder.Current()
	r.Holder.cur.Store(c)
	if old != nil && !reflect.DeepEqual(old.serverSettings(), c.serverSettings()) {
		r.log().Warn("config file: server settings (listen, data_dir, adb, ...) apply at the next start; tags and policies apply now", "path", r.Path)
	}
	r.log().Info("config file applied", "path", r.Path)
	if r.OnApply != nil {
		r.OnApply(old, c)
	}
	return nil
}

func (r *Reloader) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}

// Run reloads on every value from hup and whenever the file's mtime or
// size changes and then stays for one more look (looked at every
// interval; 0: DefaultPollInterval), until
// ctx ends. It starts with a reload unless Reload already ran: the file
// may have changed since it was first read, before anyone watched it.
func (r *Reloader) Run(ctx context.Context, interval time.Duration, hup <-chan os.Signal) {
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	r.mu.Lock()
	first := r.stamp == (fileStamp{})
	r.mu.Unlock()
	if first {
		_ = r.Reload()
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	// seen is the changed stamp met at the last look. A file is read only
	// once two looks in a row find the same change: a writer that
	// truncates then writes (os.WriteFile, most editors saving in place)
	// leaves the file empty or half written for a moment, and an empty
	// file is a valid config (no tags, no policies), so reading it then
	// would lift every policy until the next change.
	var seen fileStamp
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			_ = r.Reload()
		case <-tick.C:
			r.mu.Lock()
			var reload bool
			reload, seen = settled(stampOf(r.Path), r.stamp, seen)
			r.mu.Unlock()
			if reload {
				_ = r.Reload()
			}
		}
	}
}

// settled is one look of Run at the file: cur is its stamp now, read the
// stamp it had when last read, seen the change met at the look before.
// It reports whether to read the file now, and the seen of the next look.
func settled(cur, read, seen fileStamp) (reload bool, next fileStamp) {
	switch {
	case cur == read:
		return false, fileStamp{}
	case cur != seen:
		return false, cur
	}
	return true, fileStamp{}
}

// serverSettings is the File less what applies on reload.
func (c *Config) serverSettings() File {
	f := c.File
	f.Tags, f.Policies = nil, Policies{}
	return f
}
