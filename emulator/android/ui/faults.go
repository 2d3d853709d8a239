package ui

// Faults are failures real phones show, scripted per scenario ("faults" in
// scenario.json, documented in scenarios/README.md) or set at run time with
// the Device methods of package ui. The zero value injects nothing.
type Faults struct {
	// DumpNotIdle makes that many `uiautomator dump` runs fail as on a
	// screen that never goes idle (an animation, a video); -1 fails every
	// run.
	DumpNotIdle int `json:"dump_not_idle,omitempty"`
	// DumpIdleWaitMS is how long a failing dump waits before it gives up.
	// Default 10000: uiautomator's waitForIdle(1000, 10000) in DumpCommand.
	DumpIdleWaitMS int `json:"dump_idle_wait_ms,omitempty"`
	// Hang lists commands that never finish: a command name ("dumpsys")
	// matches lines starting with it and every run of that command, a
	// full line ("dumpsys window") that line and every run of that
	// command line, wherever it is (a shell session's line, a pipeline).
	// They block until the host closes the stream.
	Hang []string `json:"hang,omitempty"`
	// ANR is a package whose "isn't responding" dialog covers the screen
	// from boot.
	ANR string `json:"anr,omitempty"`
	// SleepAfterCommands turns the screen off and locks the keyguard once
	// that many commands have run (0: never).
	SleepAfterCommands int `json:"sleep_after_commands,omitempty"`
	// OfflineAfterBytes drops the link once that many bytes of the first
	// file transfer (adb push/pull) have passed (0: never). The transport
	// applies it (emulator.Start).
	OfflineAfterBytes int64 `json:"offline_after_bytes,omitempty"`
	// OfflineForMS keeps the device away that long after the drop (0: the
	// link drops and the adb server reconnects at once).
	OfflineForMS int `json:"offline_for_ms,omitempty"`
}
