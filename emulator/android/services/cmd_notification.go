package services

import (
	"fmt"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// Notifications: the posted notifications a test or scenario adds
// (PostNotification), `dumpsys notification [--noredact]` and
// `cmd statusbar expand-notifications|collapse`.

// dumpNotification is NotificationManagerService.dumpImpl abridged to the
// "Notification List:" records, each as NotificationRecord.dump prints it
// on Android 13 (header, uid, flags, key, extras, mCreationTimeMs).
// Without --noredact the title and text are printed as their length
// (Bundle's redacted dump: "String [length=N]").
func dumpNotification(d *model.Phone, c *shell.Ctx, args []string) {
	noredact := len(args) > 0 && args[0] == "--noredact"
	c.Printf("Current Notification Manager state:\n  Notification List:\n")
	for _, n := range d.State.Notifications {
		_, uid := d.AppIDs(n.Package)
		key := fmt.Sprintf("0|%s|%d|null|%d", n.Package, n.ID, uid)
		flags := 0x10 // FLAG_AUTO_CANCEL
		if n.Ongoing {
			flags = 0x62 // FLAG_ONGOING_EVENT|FLAG_NO_CLEAR|FLAG_FOREGROUND_SERVICE
		}
		c.Printf("    NotificationRecord(0x%s: pkg=%s user=UserHandle{0} id=%d tag=null importance=3 key=%s: Notification(channel=default shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x%x color=0x00000000 vis=PRIVATE))\n",
			model.ObjID("nr", key), n.Package, n.ID, key, flags)
		c.Printf("      uid=%d userId=0\n      opPkg=%s\n      flags=0x%x\n      pri=0\n      key=%s\n      seen=false\n      notification=\n          extras={\n", uid, n.Package, flags, key)
		if noredact {
			c.Printf("            android.title=String (%s)\n            android.text=String (%s)\n", n.Title, n.Text)
		} else {
			c.Printf("            android.title=String [length=%d]\n            android.text=String [length=%d]\n", len([]rune(n.Title)), len([]rune(n.Text)))
		}
		c.Printf("          }\n      mCreationTimeMs=%d\n", n.Posted.UnixMilli())
	}
	c.Printf("\n")
}

// statusbarCommand is StatusBarShellCommand: expand-notifications and
// collapse print nothing.
func statusbarCommand(c *shell.Ctx, args []string) int {
	if len(args) == 0 {
		c.Printf("Status bar commands:\n  help\n  expand-notifications\n  collapse\n")
		return 0
	}
	d := phone(c)
	d.Lock()
	defer d.Unlock()
	switch args[0] {
	case "expand-notifications":
		d.State.ShadeOpen = true
	case "collapse":
		d.State.ShadeOpen = false
	default:
		c.Errorf("Unknown command: %s\n", args[0])
		return 255
	}
	d.Changed()
	return 0
}
