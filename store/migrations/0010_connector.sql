-- connector: runtime instances (connector_id, protocol 3.0 §8.2) and user-level
-- channels (connector_channel_id, §8.3). Other packages reference channels(channel_id).
CREATE TABLE IF NOT EXISTS connectors (
    connector_id TEXT PRIMARY KEY,
    card_id      TEXT NOT NULL,
    created_ms   INTEGER NOT NULL,
    seen_ms      INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS channels (
    channel_id   TEXT PRIMARY KEY,
    connector_id TEXT NOT NULL REFERENCES connectors(connector_id) ON DELETE CASCADE,
    profiles     TEXT NOT NULL,
    created_ms   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS channels_by_connector ON channels(connector_id);
