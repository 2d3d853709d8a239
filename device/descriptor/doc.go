// Package descriptor holds the Device Profile's Descriptor state rules:
// how a binding's state and its device's presence (as adb tracking sees
// it) make the connection status and each tool's status and permission
// state (protocol 3.0 §9, Device Profile §5). Pure functions, no I/O.
package descriptor
