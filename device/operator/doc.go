// Package operator is the one operator API: every operation a lab operator
// runs (list devices, pair, approve, unbind, clear and run resets, read the
// audit trail, the policy in force and its last refused reload, answer or
// decline the agents' questions), checked and implemented once. The admin
// socket (package admin) serves it to the CLI; the console (package
// console) calls it in process. Its errors are *admin.Error with a stable
// code and a message fit to show; any other error is internal.
package operator
