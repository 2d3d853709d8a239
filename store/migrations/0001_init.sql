-- Bookkeeping only; each owning package adds its tables in its own migration:
-- 0010-0019 connector (connectors, channels), 0020-0029 files, 0030-0049 device.
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
