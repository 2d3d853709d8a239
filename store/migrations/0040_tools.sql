-- Tool calls (package device): the audit trail and the idempotency records of
-- tool.invoke. Times are Unix milliseconds.

-- One row per tool call, replays included. args holds the redacted arguments
-- as JSON: numbers, booleans and enum values as sent, free text as its length
-- only. device_hint is the redacted serial, never the full one.
CREATE TABLE tool_audit (
	id           INTEGER PRIMARY KEY,
	at_ms        INTEGER NOT NULL,
	channel_id   TEXT NOT NULL,
	device_hint  TEXT NOT NULL DEFAULT '',
	tool_id      TEXT NOT NULL,
	tool_call_id TEXT NOT NULL DEFAULT '',
	args         TEXT NOT NULL DEFAULT '{}',
	outcome      TEXT NOT NULL,
	latency_ms   INTEGER NOT NULL,
	replayed     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tool_audit_at ON tool_audit(at_ms);
CREATE INDEX tool_audit_channel ON tool_audit(channel_id, at_ms);

-- The recorded ack of a completed call, keyed by (channel, context.tool_call_id):
-- a repeated tool.invoke returns it without acting again. args_hash is the
-- SHA-256 of the arguments, so a reused tool_call_id with other arguments is
-- refused. Either result (JSON) or error_code is set.
CREATE TABLE tool_idempotency (
	channel_id    TEXT NOT NULL,
	tool_call_id  TEXT NOT NULL,
	tool_id       TEXT NOT NULL,
	args_hash     BLOB NOT NULL,
	result        TEXT,
	error_code    TEXT NOT NULL DEFAULT '',
	error_message TEXT NOT NULL DEFAULT '',
	created_at    INTEGER NOT NULL,
	expires_at    INTEGER NOT NULL,
	PRIMARY KEY (channel_id, tool_call_id)
);
CREATE INDEX tool_idempotency_expiry ON tool_idempotency(expires_at);
