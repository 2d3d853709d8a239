package devices

import (
	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// Devices are the phone's devices and what drives them: the touchscreen
// node, the screen's capture and recording, app_process and the helper it
// starts, over the phone's model.
type Devices struct {
	p   *model.Phone
	cfg Config
	// log adds an entry to the phone's command log for what a device did
	// outside a command line: a touch the panel decoded, a helper action.
	log func(touch *Touch, helper string)

	// Guarded by the model's lock.
	panel  panelState  // the touchscreen's protocol B state (inputdev.go)
	helper helperState // the resident helper's side (cmd_appprocess.go)
}

// Config is what the phone's configuration says of its devices.
type Config struct {
	// AppProcess runs what app_process starts; nil aborts it.
	AppProcess AppProcessFunc
	// UiAutomationHeld: another owner holds the UiAutomation slot.
	UiAutomationHeld bool
	// RealTimeRecord makes screenrecord last its --time-limit.
	RealTimeRecord bool
	// InputWritable: SELinux lets the shell write /dev/input nodes.
	InputWritable bool
}

// New returns the devices of the phone p; log writes the command log.
func New(p *model.Phone, cfg Config, log func(touch *Touch, helper string)) *Devices {
	d := &Devices{p: p, cfg: cfg, log: log}
	d.panel.reset()
	return d
}

// Phone is the device the commands of this room run on.
type Phone interface {
	shell.Phone
	Devices() *Devices
}

// dev is the devices of the phone a command runs on.
func dev(c *shell.Ctx) *Devices { return c.Phone.(Phone).Devices() }
