// Package console is the operator console: a small web UI, served by
// `adb-connector serve --console-listen` on a listener of its own, that
// shows a shelf of phones at a glance (state, holder, lease, battery, a
// live thumbnail), hands them out (pairing codes, request approvals),
// takes them back (unbind, clear or run a reset) and shows the audit trail
// and the policy in force. It acts only through the operator API (package
// operator), the very one the admin socket serves to the CLI; it imports
// neither adb nor the database.
//
// Security: the operator's token (never the xAgent system key) is checked
// in constant time at login only; the session is a random id in an
// HttpOnly, SameSite=Strict cookie, every POST carries the session's CSRF
// token, and pages are sent with a Content-Security-Policy that allows
// nothing but this server (no inline script), X-Frame-Options DENY and
// Referrer-Policy no-referrer. Pages are server-rendered (html/template)
// and work without JavaScript; the embedded script only refreshes them.
package console
