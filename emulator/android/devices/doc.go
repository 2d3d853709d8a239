// Package devices is the virtual phone's devices and the tools that
// drive them: the touchscreen node /dev/input/event2 (protocol B events
// written to it tap, long-press and swipe as `input` does) and getevent,
// `input` itself, screencap and `uiautomator dump` (the capture of the
// screen model.Phone renders), screenrecord, and app_process with the
// connector's helper (phonefw.Phone over the model, one UiAutomation
// slot). Devices holds their state under the model's lock.
//
// The phone a command runs on is a Phone (the shell's view of it and its
// Devices); what the devices log goes to the phone's command log through
// the func New is given. It imports model, shell, ui, vfs and phonefw,
// never package services.
package devices
