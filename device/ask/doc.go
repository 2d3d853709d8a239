// Package ask holds the questions agents put to the lab's operator
// (android_ask_operator): at most one open per channel, each waiting for
// the operator's answer or decline (the operator API), or for its channel
// to lose its phone (the Profile closes it), or for the asking call to end.
// An in-memory board: a question does not outlive the call that asks it,
// so nothing survives a restart.
package ask
