package android

import (
	"fmt"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// Notifications: the posted notifications a test or scenario adds
// (PostNotification), `dumpsys notification [--noredact]` and
// `cmd statusbar expand-notifications|collapse`.

// NotificationSpec is a notification an app posts.
type NotificationSpec struct {
	Package, Title, Text string
	// Ongoing sets FLAG_ONGOING_EVENT (a foreground service, a call).
	Ongoing bool
}

// notification is a posted one.
type notification struct {
	NotificationSpec
	id     int
	posted time.Time
}

// PostNotification posts n (as NotificationManager.notify would); the
// newest is printed first, as NotificationManagerService keeps its list.
func (d *Device) PostNotification(n NotificationSpec) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.st.notifID++
	d.st.notifications = append([]notification{{NotificationSpec: n, id: d.st.notifID, posted: d.now()}}, d.st.notifications...)
	d.changed()
}

// ShadeOpen reports whether the notification shade is pulled down.
func (d *Device) ShadeOpen() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.st.shadeOpen
}

// dumpNotification is NotificationManagerService.dumpImpl abridged to the
// "Notification List:" records, each as NotificationRecord.dump prints it
// on Android 13 (header, uid, flags, key, extras, mCreationTimeMs).
// Without --noredact the title and text are printed as their length
// (Bundle's redacted dump: "String [length=N]").
func (d *Device) dumpNotification(c *shell.Ctx, args []string) {
	noredact := len(args) > 0 && args[0] == "--noredact"
	c.Printf("Current Notification Manager state:\n  Notification List:\n")
	for _, n := range d.st.notifications {
		_, uid := d.appIDs(n.Package)
		key := fmt.Sprintf("0|%s|%d|null|%d", n.Package, n.id, uid)
		flags := 0x10 // FLAG_AUTO_CANCEL
		if n.Ongoing {
			flags = 0x62 // FLAG_ONGOING_EVENT|FLAG_NO_CLEAR|FLAG_FOREGROUND_SERVICE
		}
		c.Printf("    NotificationRecord(0x%s: pkg=%s user=UserHandle{0} id=%d tag=null importance=3 key=%s: Notification(channel=default shortcut=null contentView=null vibrate=null sound=null defaults=0x0 flags=0x%x color=0x00000000 vis=PRIVATE))\n",
			objID("nr", key), n.Package, n.id, key, flags)
		c.Printf("      uid=%d userId=0\n      opPkg=%s\n      flags=0x%x\n      pri=0\n      key=%s\n      seen=false\n      notification=\n          extras={\n", uid, n.Package, flags, key)
		if noredact {
			c.Printf("            android.title=String (%s)\n            android.text=String (%s)\n", n.Title, n.Text)
		} else {
			c.Printf("            android.title=String [length=%d]\n            android.text=String [length=%d]\n", len([]rune(n.Title)), len([]rune(n.Text)))
		}
		c.Printf("          }\n      mCreationTimeMs=%d\n", n.posted.UnixMilli())
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
	d := dev(c)
	d.mu.Lock()
	defer d.mu.Unlock()
	switch args[0] {
	case "expand-notifications":
		d.st.shadeOpen = true
	case "collapse":
		d.st.shadeOpen = false
	default:
		c.Errorf("Unknown command: %s\n", args[0])
		return 255
	}
	d.changed()
	return 0
}
