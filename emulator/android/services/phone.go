package services

import (
	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// Phone is the device the commands run on: the shell's view of it and
// its model, which they read and change under the model's lock.
type Phone interface {
	shell.Phone
	Model() *model.Phone
	// CommandFunc is the device command name runs, as the shell finds it
	// (`cmd activity` runs am).
	CommandFunc(name string) (func(*shell.Ctx) int, bool)
}

// phone is the model of the device a command runs on.
func phone(c *shell.Ctx) *model.Phone { return c.Phone.(Phone).Model() }
