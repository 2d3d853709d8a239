// Package files keeps the bytes a tool returns (screenshots, recordings) for a
// short time and serves them at GET /files/refs/{file_ref} (connector protocol
// 3.0 §5.2; Device Profile v1 §6: no file bytes in WebSocket payloads).
//
// A [Store] writes each file to its directory under an unguessable file_ref
// ("file_" + 160 random bits in lowercase base32), binds it to the channel that
// produced it, and indexes it in SQLite (table files, migration 0020) so that
// unexpired refs survive a restart. Files expire after a TTL, the total size is
// capped with oldest-first eviction, and a janitor removes expired files and
// orphans. [Store.Handler] serves the bytes with Range support; a ref that is
// unknown, expired or malformed is a 404, a ref of another channel (named by
// the X-XAgent-Connector-Channel-ID header) a 403.
//
// The package writes plain SQL against the handles of [store.DB]; it does not
// import the SQLite driver.
package files
