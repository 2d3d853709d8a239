// Package model is the virtual phone's model: what the phone is (its
// properties, scenario, physical display, timing profile, file system)
// and what it shows and holds now (screen and keyguard, rotation, the
// task stack, text fields, settings, runtime permissions, notifications,
// the log buffers, injected faults), with one lock over that state, and
// how the state reacts to input (tap, swipe, key, text, launch, back,
// home, force-stop), the element tree it resolves to and the pixels
// rendered from it.
//
// It knows no shell and no command: Android's services (package services)
// and the phone's devices (package devices) print and act through it,
// under its lock (Lock; methods named ...Locked want it held). It imports
// only timing, vfs and ui.
package model
