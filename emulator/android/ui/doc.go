// Package ui is the virtual phone's screen: scenarios (scenarios/README.md)
// with their screens, apps and pinned outputs; the resolved element tree
// that `uiautomator dump` prints (WriteDump) and that real dump files are
// read into (ParseDump); the renderer that draws the same tree, so pixels
// and XML agree (DrawNode, the bitmap font, generated pictures); and the
// MP4 container screenrecord writes. It knows nothing of the device's
// state or shell; package android decides what is on screen.
package ui
