// Package audit is the tool-call audit trail the operator reviews: the one
// writer of its rows (tool calls from the pipeline, resets of released
// devices), their retention, the query, and the reading of the operator's
// filter shared by `adb-connector audit` and the console. Rows hold
// redacted arguments only (Device Profile §7: typed text as its length).
package audit
