-- Device Profile state (package device): channel<->device bindings, one-time
-- pairing codes and polling request sessions. Times are Unix milliseconds.
-- Codes are stored only as HMAC-SHA256 digests keyed by the install secret.

-- One row per channel (PRIMARY KEY): a channel holds at most one device.
-- A device is bound to at most one channel (partial UNIQUE index on bound rows).
-- state 'revoked' keeps the channel's marker after an operator unbind, so its
-- Descriptor says revoked until the channel logs out or binds again.
CREATE TABLE device_bindings (
	channel_id TEXT PRIMARY KEY,
	device_key TEXT NOT NULL,
	state      TEXT NOT NULL CHECK (state IN ('bound', 'revoked')),
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX device_bindings_bound_device ON device_bindings(device_key) WHERE state = 'bound';

-- At most one live code per device; a new code replaces the old one.
CREATE TABLE device_pairing_codes (
	device_key TEXT PRIMARY KEY,
	code_hash  BLOB NOT NULL,
	expires_at INTEGER NOT NULL,
	created_at INTEGER NOT NULL
);

-- device_request sessions: pending until an operator approves the code.
CREATE TABLE device_auth_requests (
	session_id TEXT PRIMARY KEY,
	channel_id TEXT NOT NULL,
	code_hash  BLOB NOT NULL UNIQUE,
	status     TEXT NOT NULL CHECK (status IN ('pending', 'authenticated')),
	device_key TEXT NOT NULL DEFAULT '',
	expires_at INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE INDEX device_auth_requests_channel ON device_auth_requests(channel_id);
