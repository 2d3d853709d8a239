// Package shell is what the virtual phone's /system/bin/sh runs besides
// Android's own tools: the command context (Ctx: argv, directory, streams,
// the line's Session and its timing Charges), toybox's option parser
// (ToyParse, lib/args.c) and its file and text commands (ls, stat, cat,
// sed, tr, printf, gzip, ...), and mksh's builtins (echo, test, cat,
// sleep) as Android's mksh does them. Commands reach the phone through
// the Phone interface; package android registers them in its command
// table, next to Android's services (am, pm, wm, dumpsys, ...).
package shell
