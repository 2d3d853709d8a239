package device

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/ask"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/card"
	"github.com/adb-connector/adb-connector/device/descriptor"
	"github.com/adb-connector/adb-connector/device/lease"
	"github.com/adb-connector/adb-connector/device/operator"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/redact"
	"github.com/adb-connector/adb-connector/device/reset"
	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/files"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
	"github.com/adb-connector/adb-connector/store"
)

// unboundDisplayName is target.display_name of a channel with no device.
const unboundDisplayName = "No device bound"

// Pusher sends connection.descriptor.push for a channel; *connector.Server
// implements it. PushDescriptor must not wait for the peer.
type Pusher interface {
	PushDescriptor(ctx context.Context, channelID string) error
}

// DefaultProbeTimeout bounds the probe that confirms a device answers
// before its binding is projected as connected.
const DefaultProbeTimeout = 5 * time.Second

// ServiceConfig configures a Service. DB and ADB are required; the zero
// value of every other field means its default.
type ServiceConfig struct {
	// DB holds bindings, pairing codes and request sessions. Required.
	DB *store.DB
	// ADB is the adb client whose device tracking feeds the presence map
	// (it must not be built with NoTracking). Required.
	ADB *adb.Client
	// Audit writes the resets' audit rows (the tools' writer, so one
	// writer prunes the trail). Nil: one on DB with audit.DefaultRetention.
	Audit *audit.Writer
	// Files is the file_ref store; a released or logged-out channel's files
	// are deleted. Nil: no files to delete.
	Files *files.Store
	// Logger receives Debug lines for device events and pushes, Warn for
	// failures. Default: discard.
	Logger *slog.Logger
	// Now is the clock of the auth flows. Default time.Now.
	Now func() time.Time
	// ToolIDs lists the Card's tool ids in Card order, for Descriptor
	// tools[] (tools.IDs). Nil: no tools.
	ToolIDs []string
	// Policy, when set, is the operator's config file in force: it tags
	// devices (shown by the admin socket's devices) and says which tools
	// are offered on each; a tool it refuses is not_supported in that
	// channel's Descriptor. PolicyChanged re-pushes after it changes. Nil:
	// no policy, every tool is offered everywhere.
	Policy *policy.Holder
	// Secret keys the code HMACs. Default: auth.LoadOrCreateSecret in the
	// database's directory.
	Secret []byte
	// PairingRateLimit bounds pairing attempts per channel and per serial.
	// Default 5 per minute.
	PairingRateLimit ratelimit.Rate
	// RequestTTL is a device_request code's lifetime. Default auth.DefaultRequestTTL.
	RequestTTL time.Duration
	// PollInterval is the suggested auth.status polling interval. Default
	// auth.DefaultPollInterval.
	PollInterval time.Duration
	// ProbeTimeout bounds the `true` shell command that confirms a device
	// answers. Default DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// Lease gives a device's lease and reset policy (lease.go): its lease
	// part feeds package lease, its reset part package reset. It is asked
	// again at every lease check and reset, so a policy that changed
	// applies to running leases (call PolicyChanged to apply it at once).
	// Nil: DefaultLeasePolicy for every device.
	Lease func(deviceKey string) LeasePolicy
	// ResetTimeout bounds one reset. Default reset.DefaultTimeout.
	ResetTimeout time.Duration
	// ResetRetry is how often failed resets of devices that answer are
	// retried. Default reset.DefaultRetry.
	ResetRetry time.Duration
}

// Service is the xagent.device.v1 Profile: it implements connector.Profile
// (Descriptor and auth.*) over the binding table and the two auth flows,
// tools.Resolver for the tools, and keeps an in-memory map of device
// presence fed by adb tracking, pushing a channel's Descriptor whenever its
// computed state changes. Safe for concurrent use. Close stops it.
type Service struct {
	cfg      ServiceConfig
	log      *slog.Logger
	bindings *binding.Table
	pairing  *auth.Pairing
	requests *auth.Requests

	ctx    context.Context // canceled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	pusher    Pusher // set once by Start
	startOnce sync.Once

	// bindMu serialises refreshes of the binding cache, so the newest read
	// of the database is always applied last.
	bindMu sync.Mutex

	mu        sync.RWMutex
	byChannel map[string]binding.Binding // bound and revoked rows
	byDevice  map[string]string          // device key -> channel (bound only)
	presence  map[string]*devicePresence
	lastSeen  map[string]descriptorView // what the peer last received per channel
	forms     map[string]formSession    // device_pairing sessions by id
	updated   chan struct{}             // closed and replaced on every presence or binding change

	leases *lease.Leases // fed by bindingsChanged
	// questions are android_ask_operator's open questions; a channel's
	// closes when it loses its phone (bindingsChanged).
	questions *ask.Board
	resets    *reset.Resets // fed by the binding table's release events

	dirtyMu sync.Mutex
	dirty   map[string]bool
	kick    chan struct{}
}

var (
	_ connector.Profile = (*Service)(nil)
	_ tools.Resolver    = (*Service)(nil)
)

// NewService loads the bindings; Start then follows adb device events and
// pushes. Restored bindings are offline until their device answers.
func NewService(ctx context.Context, cfg ServiceConfig) (*Service, error) {
	if cfg.DB == nil {
		return nil, errors.New("device service: nil DB")
	}
	if cfg.ADB == nil {
		return nil, errors.New("device service: nil ADB client")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ProbeTimeout <= 0 {
		cfg.ProbeTimeout = DefaultProbeTimeout
	}
	if cfg.Audit == nil {
		cfg.Audit = audit.NewWriter(cfg.DB.Write, 0, cfg.Now)
	}
	if cfg.Secret == nil {
		sec, err := auth.LoadOrCreateSecret(filepath.Dir(cfg.DB.Path))
		if err != nil {
			return nil, fmt.Errorf("device service: %w", err)
		}
		cfg.Secret = sec
	}
	s := &Service{
		cfg:       cfg,
		log:       cfg.Logger,
		byChannel: map[string]binding.Binding{},
		byDevice:  map[string]string{},
		presence:  map[string]*devicePresence{},
		lastSeen:  map[string]descriptorView{},
		forms:     map[string]formSession{},
		updated:   make(chan struct{}),
		dirty:     map[string]bool{},
		kick:      make(chan struct{}, 1),
		questions: ask.NewBoard(),
	}
	s.bindings = binding.New(cfg.DB, binding.Options{
		Now: cfg.Now, OnChange: s.bindingsChanged,
		ResetOnRelease: func(key string) binding.ResetStatus { return s.resets.Owed(key) },
		OnRelease:      func(r binding.Release) { s.resets.Released(r) },
	})
	s.leases = lease.New(lease.Config{Policy: s.leaseOf, Expire: s.bindings.Expire, Now: cfg.Now, Logger: cfg.Logger})
	s.resets = reset.New(reset.Config{ADB: cfg.ADB, Bindings: s.bindings, Audit: cfg.Audit, Policy: s.resetOf,
		Online: s.online, Bound: s.deviceBound, Changed: s.notify, Logger: cfg.Logger, Now: cfg.Now,
		Timeout: cfg.ResetTimeout, Retry: cfg.ResetRetry, BaselineTimeout: cfg.ProbeTimeout})
	s.pairing = auth.NewPairing(s.bindings, cfg.Secret, auth.PairingOptions{Now: cfg.Now, RateLimit: cfg.PairingRateLimit})
	s.requests = auth.NewRequests(s.bindings, cfg.Secret, auth.RequestOptions{
		Now: cfg.Now, TTL: cfg.RequestTTL, PollInterval: cfg.PollInterval, Devices: s.liveDevices,
	})
	list, err := s.bindings.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("device service: %w", err)
	}
	for _, b := range list {
		s.byChannel[b.ChannelID] = b
		if b.State == binding.Bound {
			s.byDevice[b.DeviceKey] = b.ChannelID
		}
		if b.State == binding.Bound {
			s.leases.Bound(b.ChannelID, b.DeviceKey, b.CreatedAt)
		}
	}
	if err := s.bindings.RequeueRunning(ctx); err != nil {
		return nil, fmt.Errorf("device service: %w", err)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// Start follows adb device events and pushes every Descriptor change to p
// (the connector.Server, which is built with this Service as its Profile,
// hence a step of its own). Only the first call starts anything; Close
// stops it.
func (s *Service) Start(p Pusher) {
	s.startOnce.Do(func() {
		s.pusher = p
		s.wg.Go(s.track)
		s.wg.Go(s.pushLoop)
		s.wg.Go(func() { s.leases.Run(s.ctx) })
		s.resets.Start()
	})
}

// Close stops tracking and pushing and waits for every goroutine the
// Service started (probes included). Idempotent. It closes neither the DB,
// the adb client nor the file store.
func (s *Service) Close() error {
	s.once.Do(func() {
		s.cancel()
		s.wg.Wait()
		s.resets.Close()
	})
	return nil
}

// Operator returns the operator API over the Service's tables, flows,
// live devices, leases and resets, with serve's part; the admin socket
// serves it and the console calls it. Its changes are pushed like any.
func (s *Service) Operator(serve operator.Serve) *operator.API {
	return operator.New(operator.Config{Bindings: s.bindings, Pairing: s.pairing, Requests: s.requests, ADB: s.cfg.ADB,
		DB: s.cfg.DB, Devices: s.liveDevices, Tags: s.tagsOf, Leases: s.leases, Resets: s.resets, Policy: s.cfg.Policy,
		Questions: s.questions, Now: s.cfg.Now, Serve: serve})
}

// Questions is the board of android_ask_operator's questions
// (tools.Config.Questions), which the operator API answers.
func (s *Service) Questions() *ask.Board { return s.questions }

// descriptorView is what a channel's Descriptor shows; comparable, so a
// change can be detected.
type descriptorView struct {
	state     descriptor.State
	target    connector.DescriptorTarget
	deviceKey string // of a bound or revoked channel
	// withheld lists the tools not offered on the device (withheldLocked),
	// so a policy change that changes the tool set is pushed.
	withheld string
}

// viewLocked computes a channel's Descriptor view from the caches; s.mu
// must be held.
func (s *Service) viewLocked(channelID string) descriptorView {
	v := descriptorView{target: connector.DescriptorTarget{Provider: card.TargetProvider, Label: card.TargetLabel, DisplayName: unboundDisplayName}}
	b, ok := s.byChannel[channelID]
	if !ok {
		v.state = descriptor.ComputeState(descriptor.StateInput{Binding: binding.None})
		return v
	}
	v.deviceKey = b.DeviceKey
	_, serial := binding.SplitKey(b.DeviceKey)
	pres, model := s.presenceLocked(b.DeviceKey)
	v.state = descriptor.ComputeState(descriptor.StateInput{Binding: b.State, Presence: pres})
	v.target.DisplayName = redact.DisplayName(model, serial)
	v.target.AccountHint = redact.SerialHint(serial)
	v.withheld = s.withheldLocked(b.DeviceKey)
	return v
}

// presenceLocked is what tracking says of a device key: unknown when not
// seen since start; s.mu must be held.
func (s *Service) presenceLocked(key string) (descriptor.Presence, string) {
	if p := s.presence[key]; p != nil {
		return p.presence, p.model
	}
	return descriptor.PresenceUnknown, ""
}

// Descriptor implements connector.Profile: binding state and device
// presence from memory, through descriptor.ComputeState. It records what it returned
// so later changes are pushed.
func (s *Service) Descriptor(_ context.Context, ch connector.Channel) (connector.DescriptorState, error) {
	s.mu.Lock()
	v := s.viewLocked(ch.ID)
	s.lastSeen[ch.ID] = v
	s.mu.Unlock()
	tools := make([]connector.DescriptorTool, len(s.cfg.ToolIDs))
	for i, id := range s.cfg.ToolIDs {
		t := v.state.ToolEntry(id, !withheldHas(v.withheld, id))
		tools[i] = connector.DescriptorTool{ToolID: t.ToolID, Status: string(t.Status), TargetPermissionState: string(t.TargetPermissionState)}
	}
	return connector.DescriptorState{
		Status:     string(v.state.Status),
		TargetType: card.TargetType,
		Target:     v.target,
		Tools:      tools,
	}, nil
}

// DeviceFor implements tools.Resolver: the bound, online, authorized device
// of channelID. Not bound, revoked or expired: tools.ErrNotBound; offline,
// not yet seen or adb server down: adb.ErrDeviceOffline; unauthorized:
// adb.ErrUnauthorized. Every tool call comes here, so it renews the
// channel's idle lease.
func (s *Service) DeviceFor(_ context.Context, channelID string) (*adb.Device, tools.Meta, error) {
	s.leases.Touch(channelID)
	s.mu.RLock()
	b, ok := s.byChannel[channelID]
	pres, model := s.presenceLocked(b.DeviceKey)
	var transport adb.Transport
	var manufacturer string
	if p := s.presence[b.DeviceKey]; p != nil {
		transport, manufacturer = p.transport, p.manufacturer
	}
	s.mu.RUnlock()
	if !ok || b.State != binding.Bound {
		return nil, tools.Meta{}, tools.ErrNotBound
	}
	_, serial := binding.SplitKey(b.DeviceKey)
	meta := tools.Meta{Key: b.DeviceKey, Model: redact.Model(model), Manufacturer: manufacturer, Hint: redact.SerialHint(serial), Transport: transport}
	switch pres {
	case descriptor.PresenceOnline:
	case descriptor.PresenceUnauthorized:
		return nil, meta, fmt.Errorf("device %s: %w", meta.Hint, adb.ErrUnauthorized)
	default:
		return nil, meta, fmt.Errorf("device %s: %w", meta.Hint, adb.ErrDeviceOffline)
	}
	d, err := s.cfg.ADB.Device(b.DeviceKey)
	if err != nil {
		return nil, meta, fmt.Errorf("device %s: %w", meta.Hint, err)
	}
	return d, meta, nil
}

// notify wakes everyone waiting on Updated.
func (s *Service) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifyLocked()
}

// online reports whether tracking counts the device as answering.
func (s *Service) online(key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	pres, _ := s.presenceLocked(key)
	return pres == descriptor.PresenceOnline
}

// deviceBound reports whether a channel holds the device now.
func (s *Service) deviceBound(key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.byDevice[key]
	return ok
}

// notifyLocked wakes everyone waiting on Updated. s.mu must be held.
func (s *Service) notifyLocked() {
	close(s.updated)
	s.updated = make(chan struct{})
}

// Updated returns a channel closed at the next change of device presence
// or of the binding cache: a signal for tests and monitors to re-read
// state, without polling.
func (s *Service) Updated() <-chan struct{} {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.updated
}

// forgetChannels drops per-channel memory of released channels.
func (s *Service) forgetChannels(channelIDs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range channelIDs {
		delete(s.lastSeen, ch)
		s.forgetFormsLocked(ch)
	}
}
