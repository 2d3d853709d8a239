package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/files"
)

// The host checks of doctor: the USB setup (sysfs, udev rules, plugdev)
// and the data directory on disk.

// udevRule is the rule line that lets plugdev use a USB vendor's phones,
// as in udev/51-android.rules.
func udevRule(vendor string) string {
	return fmt.Sprintf(`SUBSYSTEM=="usb", ATTR{idVendor}=="%s", MODE="0660", GROUP="plugdev"`, vendor)
}

func (d *doctor) sysRoot() string {
	if d.SysRoot != "" {
		return d.SysRoot
	}
	return "/sys"
}

func (d *doctor) udevDirs() []string {
	if len(d.UdevDirs) > 0 {
		return d.UdevDirs
	}
	return []string{"/etc/udev/rules.d", "/lib/udev/rules.d", "/usr/lib/udev/rules.d"}
}

// usbVendor finds the USB vendor id of a phone in sysfs: by its USB path
// (adb's "usb:1-1.2" is sysfs's bus/usb/devices/1-1.2), else by the serial
// the phone reports. "" when not found.
func (d *doctor) usbVendor(info adb.DeviceInfo) string {
	dir := filepath.Join(d.sysRoot(), "bus", "usb", "devices")
	read := func(name, attr string) string {
		b, err := os.ReadFile(filepath.Join(dir, name, attr))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	if p, ok := strings.CutPrefix(info.DevPath, "usb:"); ok && !strings.ContainsAny(p, "/\\") {
		if v := read(p, "idVendor"); v != "" {
			return v
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if read(e.Name(), "serial") == info.Serial && info.Serial != "" {
			return read(e.Name(), "idVendor")
		}
	}
	return ""
}

// udevFix is the fix of a phone in "no permissions": the exact rule line
// for its vendor when sysfs has it.
func (d *doctor) udevFix(info adb.DeviceInfo) string {
	reload := "; then sudo udevadm control --reload-rules, add the service user to plugdev and replug"
	if v := d.usbVendor(info); v != "" {
		return "add to /etc/udev/rules.d/51-android.rules: " + udevRule(v) + reload
	}
	return "install udev/51-android.rules into /etc/udev/rules.d (its vendor id is in lsusb)" + reload
}

// checkUdev looks for rules that give plugdev Android phones. Only USB
// phones need them, so a missing rule is a warning.
func (d *doctor) checkUdev() checkResult {
	r := checkResult{Check: "udev"}
	for _, dir := range d.udevDirs() {
		names, _ := filepath.Glob(filepath.Join(dir, "*.rules"))
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err == nil && strings.Contains(string(b), "idVendor") && strings.Contains(string(b), "plugdev") {
				r.Status, r.Message = statusOK, "rules for USB phones: "+name
				return r
			}
		}
	}
	r.Status, r.Message = statusWarn, "no udev rule gives plugdev USB phones (in "+strings.Join(d.udevDirs(), ", ")+")"
	r.Fix = "sudo cp udev/51-android.rules /etc/udev/rules.d/ && sudo udevadm control --reload-rules (or apt-get install android-sdk-platform-tools-common); USB phones only"
	return r
}

// checkPlugdev: the udev rules give the plugdev group the USB devices.
func (d *doctor) checkPlugdev() checkResult {
	r := checkResult{Check: "plugdev"}
	name := d.ServiceUser
	if name == "" {
		name = currentUser()
	}
	groupFile := d.GroupFile
	if groupFile == "" {
		groupFile = "/etc/group"
	}
	members, found, err := groupMembers(groupFile, "plugdev")
	switch {
	case err != nil:
		r.Status, r.Message = statusWarn, err.Error()
	case !found:
		r.Status, r.Message, r.Fix = statusWarn, "no plugdev group in "+groupFile, "sudo groupadd --system plugdev && sudo usermod -aG plugdev "+name
	case slices.Contains(members, name):
		r.Status, r.Message = statusOK, name+" is in plugdev"
	default:
		r.Status, r.Message = statusWarn, name+" is not in plugdev: USB phones show \"no permissions\""
		r.Fix = "sudo usermod -aG plugdev " + name + ", then restart the service (USB phones only)"
	}
	return r
}

// groupMembers reads the member list of group from a group(5) file.
func groupMembers(path, group string) (members []string, found bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("groups: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) == 4 && fields[0] == group {
			if fields[3] != "" {
				members = strings.Split(fields[3], ",")
			}
			return members, true, nil
		}
	}
	return nil, false, sc.Err()
}

// checkDataDir checks the modes of the data directory and what it holds:
// the database and secrets are the service user's alone.
func (d *doctor) checkDataDir() []checkResult {
	dir := d.cfg.DataDir
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []checkResult{{Check: "data-dir", Status: statusWarn, Message: dir + " does not exist yet",
			Fix: "serve creates it (0700) on first start; check --data-dir"}}
	}
	if err != nil {
		return []checkResult{{Check: "data-dir", Status: statusFail, Message: err.Error(), Fix: "run doctor as the service user, with serve's --data-dir"}}
	}
	out := []checkResult{modeCheck("data-dir", dir, st, 0o700)}
	for _, p := range []struct {
		path string
		want fs.FileMode
	}{
		{filepath.Join(dir, "auth.key"), 0o600},
		{admin.SocketPath(dir), 0o600},
		{filepath.Join(dir, files.DefaultDirName), 0o700},
	} {
		if st, err := os.Lstat(p.path); err == nil {
			out = append(out, modeCheck("data-dir", p.path, st, p.want))
		}
	}
	if kf := d.cfg.KeyFile; kf != "" {
		if st, err := os.Stat(kf); err == nil && st.Mode().Perm()&0o007 != 0 {
			out = append(out, checkResult{Check: "key-file", Status: statusFail,
				Message: fmt.Sprintf("%s is %04o: other users can read the API key", kf, st.Mode().Perm()),
				Fix:     "sudo chmod 0640 " + kf + " (group adb-connector)"})
		} else if err == nil {
			out = append(out, checkResult{Check: "key-file", Status: statusOK, Message: fmt.Sprintf("%s is %04o", kf, st.Mode().Perm())})
		}
	}
	return out
}

// modeCheck fails when group or others have any access beyond want.
func modeCheck(check, path string, st fs.FileInfo, want fs.FileMode) checkResult {
	perm := st.Mode().Perm()
	if perm&0o077&^want != 0 {
		return checkResult{Check: check, Status: statusFail,
			Message: fmt.Sprintf("%s is %04o, want %04o: other users can read it", path, perm, want),
			Fix:     fmt.Sprintf("chmod %04o %s", want, path)}
	}
	return checkResult{Check: check, Status: statusOK, Message: fmt.Sprintf("%s is %04o", path, perm)}
}

// checkDisk: screenshots are cached in the data dir up to --file-cap-bytes.
func (d *doctor) checkDisk() checkResult {
	r := checkResult{Check: "disk"}
	dir := d.cfg.DataDir
	for { // the nearest existing parent of a data dir not made yet
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	free, err := freeBytes(dir)
	if err != nil {
		r.Status, r.Message = statusWarn, fmt.Sprintf("free space of %s: %v", dir, err)
		return r
	}
	need := d.cfg.Device.FileCap
	if free < uint64(need) {
		r.Status = statusWarn
		r.Message = fmt.Sprintf("%s has %s free, less than --file-cap-bytes (%s)", dir, mib(free), mib(uint64(need)))
		r.Fix = "free space there, or lower --file-cap-bytes"
		return r
	}
	r.Status, r.Message = statusOK, fmt.Sprintf("%s has %s free for files (cap %s)", dir, mib(free), mib(uint64(need)))
	return r
}

func freeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

func mib(n uint64) string { return fmt.Sprintf("%d MiB", n>>20) }
