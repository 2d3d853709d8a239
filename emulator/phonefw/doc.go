// Package phonefw runs the connector's phone helper (adb/helper's jar, the
// very bytes the binary ships) on the host JVM against a fake Android
// framework, so that its own code is what the tests exercise: Debian has no
// Android runtime, so the jar's classes.dex is translated to JVM bytecode
// by enjarify, and the framework classes it touches (java/: UiAutomation,
// AccessibilityNodeInfo, InputManager, IClipboard, ...) are compiled with
// javac for one SDK level at a time, each with the classes and signatures
// AOSP has at that level, so every reflection fallback of the helper runs.
//
// The framework is bound to a Phone (the virtual phone's screen, input,
// clipboard and screenshots, or a canned screen in tests) over a loopback
// side channel. The package lives apart from emulator/android because it
// runs host programs (javac, enjarify, java): the Android model touches
// nothing of the host and reaches this package only through the
// app_process hook its Config carries.
package phonefw
