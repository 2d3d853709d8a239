package vfs

import (
	"io/fs"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/adb-connector/adb-connector/emulator/adbd"
)

// The file operations below answer with the errno values the Linux system
// calls they stand for return (rename(2), chmod(2), utimensat(2)), so the
// tools that use them print the same strerror texts as on a phone.

// Rename moves oldp to newp as rename(2) does: it replaces an existing
// file, or an empty directory with a directory.
func (f *FS) Rename(oldp, newp string) error {
	oldp, newp = CleanPath("/", oldp), CleanPath("/", newp)
	f.mu.Lock()
	defer f.mu.Unlock()
	src, ok := f.nodes[oldp]
	if !ok {
		return pathErr("rename", oldp, fs.ErrNotExist)
	}
	parent, ok := f.nodes[path.Dir(newp)]
	switch {
	case !ok:
		return pathErr("rename", newp, fs.ErrNotExist)
	case !parent.dir:
		return pathErr("rename", newp, ErrNotDir)
	case oldp == newp:
		return nil
	case oldp == "/" || oldp == "/dev/null" || newp == "/dev/null":
		return pathErr("rename", oldp, syscall.EBUSY)
	case src.dir && strings.HasPrefix(newp, oldp+"/"):
		return pathErr("rename", newp, syscall.EINVAL)
	}
	if dst, ok := f.nodes[newp]; ok {
		switch {
		case src.dir && !dst.dir:
			return pathErr("rename", newp, ErrNotDir)
		case !src.dir && dst.dir:
			return pathErr("rename", newp, ErrIsDir)
		case dst.dir && f.hasChildrenLocked(newp):
			return pathErr("rename", newp, syscall.ENOTEMPTY)
		}
	}
	moved := map[string]*fsNode{newp: src}
	for name, n := range f.nodes {
		if strings.HasPrefix(name, oldp+"/") {
			moved[newp+name[len(oldp):]] = n
			delete(f.nodes, name)
		}
	}
	delete(f.nodes, oldp)
	for name, n := range moved {
		f.nodes[name] = n
	}
	return nil
}

func (f *FS) hasChildrenLocked(dir string) bool {
	for name := range f.nodes {
		if strings.HasPrefix(name, dir+"/") {
			return true
		}
	}
	return false
}

// Chmod sets the permission bits (07777) of p.
func (f *FS) Chmod(p string, perm uint32) error {
	p = CleanPath("/", p)
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[p]
	if !ok {
		return pathErr("chmod", p, fs.ErrNotExist)
	}
	if p == "/dev/null" || p == "/" {
		return pathErr("chmod", p, fs.ErrPermission)
	}
	n.perm = perm & 0o7777
	return nil
}

// Touch sets the modification time of p; with create, a missing file is
// created empty with mode 0666 (toybox touch opens with 0666; the model
// applies no umask).
func (f *FS) Touch(p string, mtime time.Time, create bool) error {
	p = CleanPath("/", p)
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.nodes[p]; ok {
		if p != "/dev/null" {
			n.mtime = mtime
		}
		return nil
	}
	if !create {
		return pathErr("utimensat", p, fs.ErrNotExist)
	}
	parent, ok := f.nodes[path.Dir(p)]
	if !ok {
		return pathErr("open", p, fs.ErrNotExist)
	}
	if !parent.dir {
		return pathErr("open", p, ErrNotDir)
	}
	f.nodes[p] = &fsNode{perm: 0o666, mtime: mtime}
	return nil
}

// rootLinks are the symbolic links a phone has on the way to shared
// storage (AOSP rootdir: /sdcard -> /storage/self/primary, a link to the
// user's /storage/emulated/N). The file system maps those paths to
// /sdcard; tools that do not follow a link named as an operand (ls -l/-d/
// -F, stat, rm) and listings of their directory show the link itself.
var rootLinks = map[string]string{
	"/sdcard":               "/storage/self/primary",
	"/storage/self/primary": "/storage/emulated/0",
}

// linkTime is the mtime of files in Android's system image: the build
// stamps them 2009-01-01 00:00:00 UTC.
var linkTime = time.Date(2009, 1, 1, 0, 0, 0, 0, time.UTC)

// LinkAt reports whether operand (relative to cwd) names one of the
// rootLinks itself, not a path through it ("/sdcard/" follows the link).
func LinkAt(cwd, operand string) (target string, ok bool) {
	if strings.HasSuffix(operand, "/") {
		return "", false
	}
	p := operand
	if !strings.HasPrefix(p, "/") {
		p = cwd + "/" + p
	}
	target, ok = rootLinks[path.Clean(p)]
	return target, ok
}

// LinkInfo describes a root link as lstat(2) does: lrw-r--r--, root's,
// its size the length of its target.
func LinkInfo(name, target string) adbd.FileInfo {
	return adbd.FileInfo{Name: name, Mode: 0o120644, Size: int64(len(target)), ModTime: linkTime}
}

// Errors of writes the shell user may not make.
var (
	ErrAccess   error = syscall.EACCES
	ErrReadOnly error = syscall.EROFS
)

// ShellMay reports whether the adb shell user (uid 2000) may create,
// remove or rename the entry p: anything below /sdcard and
// /data/local/tmp, and inside an app's /data/user/0/PKG (reached through
// run-as, whose app uid is not modelled). The root file system and
// /system are mounted read-only (EROFS); the rest belongs to root or
// system (EACCES).
func ShellMay(p string) error {
	below := func(dir string) bool { return strings.HasPrefix(p, dir+"/") }
	switch {
	case below("/sdcard"), below("/data/local/tmp"):
		return nil
	case below("/data/user/0") && strings.Count(p, "/") >= 5:
		return nil
	case p == "/" || path.Dir(p) == "/" || p == "/system" || below("/system"):
		return pathErr("write", p, ErrReadOnly)
	}
	return pathErr("write", p, ErrAccess)
}

// nlink is the link count ls -l and stat show: a directory has one for
// itself, one for its entry in the parent and one per subdirectory's "..".
func (f *FS) Nlink(p string) int {
	p = CleanPath("/", p)
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[p]
	if !ok || !n.dir {
		return 1
	}
	links := 2
	for name, c := range f.nodes {
		if c.dir && name != p && path.Dir(name) == p {
			links++
		}
	}
	return links
}

// ModeCharDev is S_IFCHR.
const ModeCharDev = 0o020000

// CharDevice reports the device number of p if it is a character device:
// /dev/null is 1,3 on Linux.
func CharDevice(p string) (major, minor int, ok bool) {
	if p == "/dev/null" {
		return 1, 3, true
	}
	if minor, ok := InputNodes[p]; ok {
		return 13, minor, true
	}
	if minor, ok := UinputNodes[p]; ok {
		return 10, minor, true // misc devices
	}
	return 0, 0, false
}

// ShownMode is the st_mode ls and stat show for p. Shared storage is
// MediaProvider's FUSE view, which presents every directory as drwxrws---
// and every file as -rw-rw---- whatever mode it was given; elsewhere the
// mode is the node's own.
func ShownMode(p string, mode uint32) uint32 {
	if _, _, ok := CharDevice(p); ok {
		if p == "/dev/null" {
			return ModeCharDev | 0o666
		}
		return ModeCharDev | mode&0o7777
	}
	if p != "/sdcard" && !strings.HasPrefix(p, "/sdcard/") {
		return mode
	}
	if mode&0o170000 == ModeDir {
		return ModeDir | 0o2770
	}
	return ModeFile | 0o660
}

// Owner is the user and group ls and stat show for p: what a phone shows
// to the shell user. Shared storage (served by MediaProvider's FUSE
// daemon) shows files the shell made as shell:media_rw (uid 2000, gid
// 1023); /data/local/tmp and below belong to shell:shell; the rest of the
// tree to root.
func Owner(p string) (user string, uid int, group string, gid int) {
	switch {
	case p == "/sdcard" || strings.HasPrefix(p, "/sdcard/"):
		return "shell", 2000, "media_rw", 1023
	case p == "/data/local/tmp" || strings.HasPrefix(p, "/data/local/tmp/"):
		return "shell", 2000, "shell", 2000
	case InputNodes[p] != 0:
		return "root", 0, "input", GIDInput
	case UinputNodes[p] != 0:
		return "uhid", GIDUhid, "uhid", GIDUhid
	}
	return "root", 0, "root", 0
}
