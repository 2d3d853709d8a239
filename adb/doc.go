// Package adb is the connector's ADB layer: it talks to one or more adb
// servers (endpoints) with a small host-protocol client of its own (AOSP
// SERVICES.TXT, SYNC.TXT), tracks devices keyed "endpoint/serial", runs shell
// commands with exit codes and deadlines (shell v2, exec), moves files over
// the sync service, and offers typed Android operations (properties, screen,
// input, apps, screencap, UI dump, logcat) on a per-device handle.
//
// It knows nothing of xAgent. It is the only package that imports gadb; the
// gadb v0.1.0 defects listed in issue 4 (no exit codes, partial output with a
// nil error, a global read deadline, dropped bytes on push, offline devices
// vanishing, raw unix modes in os.FileMode) are avoided here and each has a
// test.
package adb
