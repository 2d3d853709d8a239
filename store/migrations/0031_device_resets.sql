-- Leases and resets (package device). A binding whose lease ended keeps an
-- 'expired' marker, like 'revoked', so its Descriptor says expired until the
-- channel logs out or binds again. SQLite cannot change a CHECK constraint,
-- so the table is rebuilt.
CREATE TABLE device_bindings_v2 (
	channel_id TEXT PRIMARY KEY,
	device_key TEXT NOT NULL,
	state      TEXT NOT NULL CHECK (state IN ('bound', 'revoked', 'expired')),
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
INSERT INTO device_bindings_v2 SELECT channel_id, device_key, state, created_at, updated_at FROM device_bindings;
DROP TABLE device_bindings;
ALTER TABLE device_bindings_v2 RENAME TO device_bindings;
CREATE UNIQUE INDEX device_bindings_bound_device ON device_bindings(device_key) WHERE state = 'bound';

-- A reset the device owes since a channel released it: 'pending' until the
-- device answers, 'running' while it runs, 'failed' until a retry succeeds
-- or the operator clears it. A device with a row is not bound again; a
-- successful reset deletes the row.
CREATE TABLE device_resets (
	device_key TEXT PRIMARY KEY,
	channel_id TEXT NOT NULL,
	reason     TEXT NOT NULL,
	status     TEXT NOT NULL CHECK (status IN ('pending', 'running', 'failed')),
	error      TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
