// Package store opens the connector's SQLite database (modernc.org/sqlite, a
// single file in the data directory) and applies the embedded, versioned
// migrations in migrations/. It is the only package that imports the SQLite
// driver; the packages that own data (connector, device, files) write their own
// SQL against the *sql.DB handles it returns.
//
// Writes go through one connection (SQLite allows one writer at a time; one
// pooled connection turns lock contention into queueing), reads through a
// small pool. The database runs in WAL mode with a busy timeout, so readers
// never block the writer.
package store
