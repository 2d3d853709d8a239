-- files: the file_ref index (package files). Bytes live on disk in the files
-- directory, one file per ref named after it; this table says which channel a
-- ref belongs to, what it is and when it expires. Times are Unix milliseconds.
CREATE TABLE IF NOT EXISTS files (
    file_ref      TEXT PRIMARY KEY,
    channel_id    TEXT NOT NULL,
    mime_type     TEXT NOT NULL,
    filename      TEXT NOT NULL,
    byte_size     INTEGER NOT NULL CHECK (byte_size >= 0),
    width         INTEGER NOT NULL DEFAULT 0,
    height        INTEGER NOT NULL DEFAULT 0,
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS files_by_channel ON files (channel_id);
CREATE INDEX IF NOT EXISTS files_by_expiry ON files (expires_at_ms);
CREATE INDEX IF NOT EXISTS files_by_age ON files (created_at_ms);
