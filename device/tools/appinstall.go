package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/apk"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/policy"
)

// The lab's shelf: a host directory of APKs the operator put there (the
// policy's apps.install_dir). android_app_list with shelf: true lists its
// *.apk files with what each says of itself, read on the host
// (adb/apk); android_app_install installs one of them by file name, never
// by path; android_app_uninstall removes an app. Package rules apply to
// both, by the package the APK declares.

// Bounds of the shelf.
const (
	maxShelfFileBytes = 255 // a file name (most file systems' limit)
	// maxShelfEntries bounds a listing: a shelf is a handful of builds
	// under test, not an archive.
	maxShelfEntries = 500
)

const ruleShelf = "shelf" // android_app_list shelf: true where no shelf is named

// shelfEntry is one APK of the shelf.
type shelfEntry struct {
	File        string `json:"file"`
	Bytes       int64  `json:"bytes"`
	Package     string `json:"package,omitempty"`
	VersionCode int64  `json:"version_code,omitempty"`
	// VersionName is null when the manifest names a string resource,
	// which only the phone resolves (the install's result has it).
	VersionName *string `json:"version_name"`
	// Unreadable says why the file cannot be installed (not an APK, a
	// manifest that does not decode); Package and the versions are then
	// absent.
	Unreadable string `json:"unreadable,omitempty"`
}

// shelfCache keeps each file's reading by path, size and modification
// time, so listing a shelf does not read every APK again.
type shelfCache struct {
	mu sync.Mutex
	m  map[string]shelfCached
}

type shelfCached struct {
	size  int64
	mtime time.Time
	entry shelfEntry
}

// entry reads the APK at p (whose stat is fi) or returns the cached
// reading of the same size and modification time.
func (c *shelfCache) entry(p string, fi os.FileInfo) shelfEntry {
	c.mu.Lock()
	got, ok := c.m[p]
	c.mu.Unlock()
	if ok && got.size == fi.Size() && got.mtime.Equal(fi.ModTime()) {
		return got.entry
	}
	e := readShelfFile(p, fi)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]shelfCached{}
	}
	c.m[p] = shelfCached{size: fi.Size(), mtime: fi.ModTime(), entry: e}
	c.mu.Unlock()
	return e
}

func readShelfFile(p string, fi os.FileInfo) shelfEntry {
	e := shelfEntry{File: fi.Name(), Bytes: fi.Size()}
	f, err := os.Open(p)
	if err != nil {
		e.Unreadable = "cannot be opened on the host"
		return e
	}
	defer f.Close()
	m, err := apk.Read(f, fi.Size())
	switch {
	case errors.Is(err, apk.ErrNotAPK):
		e.Unreadable = "not an APK (no zip archive with an AndroidManifest.xml)"
	case err != nil:
		e.Unreadable = "its AndroidManifest.xml cannot be read (damaged or not a compiled manifest)"
	default:
		e.Package, e.VersionCode = m.Package, m.VersionCode
		if !m.VersionNameRef {
			e.VersionName = &m.VersionName
		}
	}
	return e
}

// shelfList is the device's shelf directory and its APKs, or the refusal
// of a device whose policy names none.
func (t *Tools) shelfList(inv *invocation) (string, []shelfEntry, error) {
	if inv.policy == nil || inv.policy.InstallDir == "" {
		return "", nil, refuse(ruleShelf, "the operator's policy names no shelf of APKs for this device; nothing can be installed")
	}
	dir := inv.policy.InstallDir
	list, err := t.listShelf(dir)
	return dir, list, err
}

// listShelf lists the *.apk files of dir, by name.
func (t *Tools) listShelf(dir string) ([]shelfEntry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		// The operator's directory is missing or unreadable: the agent can
		// only report it.
		return nil, &connector.Error{Code: connector.CodeToolInvokeFailed, Message: "the shelf of APKs cannot be read on the host; ask the operator"}
	}
	out := []shelfEntry{}
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".apk") || checkShelfFile(name) != nil {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p) // an operator's symlink counts as its target
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, t.shelf.entry(p, fi))
		if len(out) == maxShelfEntries {
			break
		}
	}
	slices.SortFunc(out, func(a, b shelfEntry) int { return strings.Compare(a.File, b.File) })
	return out, nil
}

// checkShelfFile refuses a file argument that is not a plain file name of
// an .apk: a path (a slash, a backslash), . or .., a NUL, an absolute
// path, another extension. Nothing is read for a refused name.
func checkShelfFile(name string) error {
	switch {
	case name == "":
		return &argError{Field: "file", Reason: "is required"}
	case len(name) > maxShelfFileBytes:
		return &argError{Field: "file", Reason: "is longer than 255 bytes"}
	case strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." || filepath.IsAbs(name):
		return &argError{Field: "file", Reason: "is a file name from the shelf (android_app_list with shelf: true), not a path"}
	case strings.HasPrefix(name, "."):
		return &argError{Field: "file", Reason: "names a hidden file, which the shelf does not list"}
	case !strings.HasSuffix(name, ".apk"):
		return &argError{Field: "file", Reason: "is not an .apk file"}
	}
	return nil
}

// appInstallResult is android_app_install's result: the version as the
// phone reports it once installed.
type appInstallResult struct {
	Package     string `json:"package"`
	VersionName string `json:"version_name"`
	VersionCode int64  `json:"version_code"`
}

type appInstallArgs struct {
	File     string `json:"file"`
	GrantAll bool   `json:"grant_all"`
}

func appInstallTool(t *Tools) *toolDef {
	return declare(t, decl[appInstallArgs]{
		id: policy.InstallToolID, title: "Install an app from the lab's shelf on the Android phone",
		required: []string{"file"}, run: (*Tools).runAppInstall,
		props: map[string]any{
			"file": map[string]any{"type": "string", "minLength": 5, "maxLength": maxShelfFileBytes,
				"description": "The APK's file name as android_app_list with shelf: true lists it (e.g. app-debug.apk); never a path."},
			"grant_all": map[string]any{"type": "boolean", "description": "Grant every runtime permission the app requests (pm install -g). Default false."},
		},
		description: "Installs an APK from the lab's shelf (the APKs the operator put there; android_app_list with " +
			"shelf: true lists them with package and version) on the bound phone, as pm install -r: an app already " +
			"installed is replaced and keeps its data; the same version again is a reinstall; a lower version is " +
			"refused by the phone (uninstall first). Returns the package and the version the phone reports. A file " +
			"not on the shelf, a path or an unreadable APK: invalid_arguments and nothing is sent to the phone. The " +
			"operator's package rules apply to the package the APK declares. Progress is pushed while it installs.",
	})
}

func (t *Tools) runAppInstall(ctx context.Context, inv *invocation, a appInstallArgs) (any, error) {
	if err := checkShelfFile(a.File); err != nil {
		return nil, err
	}
	dir, list, err := t.shelfList(inv)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(list, func(e shelfEntry) bool { return e.File == a.File })
	if i < 0 {
		return nil, &argError{Field: "file", Reason: "is not on the shelf (android_app_list with shelf: true lists the APKs); nothing was installed"}
	}
	e := list[i]
	if e.Unreadable != "" {
		return nil, &argError{Field: "file", Reason: "cannot be installed: " + e.Unreadable + "; nothing was sent to the phone"}
	}
	if r := inv.policy.LaunchRefusal(e.Package); r != "" {
		return nil, refuse(rulePackage, "%s; nothing was installed", r)
	}
	f, err := os.Open(filepath.Join(dir, e.File))
	if err != nil {
		return nil, &connector.Error{Code: connector.CodeToolInvokeFailed, Message: "the APK cannot be read on the host; ask the operator"}
	}
	defer f.Close()
	// The file installed is the one whose package the rules were checked
	// on: the operator may replace a shelf's file at any time.
	if fi, err := f.Stat(); err != nil || fi.Size() != e.Bytes {
		return nil, errShelfChanged
	} else if m, err := apk.Read(f, fi.Size()); err != nil || m.Package != e.Package {
		return nil, errShelfChanged
	}
	if err := inv.dev.Install(ctx, f, adb.InstallOptions{GrantAll: a.GrantAll}); err != nil {
		return nil, pmRefusal(err, "install")
	}
	code, name, err := inv.dev.PackageVersion(ctx, e.Package)
	if err != nil {
		return nil, err
	}
	return appInstallResult{Package: e.Package, VersionName: name, VersionCode: code}, nil
}

// errShelfChanged: the APK changed on the shelf between its listing and
// its install.
var errShelfChanged = &connector.Error{Code: connector.CodeToolInvokeFailed, Message: "the APK changed on the shelf as it was being installed; nothing was installed, try again"}

// pmRefusal is the error of a failure the package manager reported: its
// code and message, which say what went wrong, with what to do for the
// common ones; other errors are returned as they are.
func pmRefusal(err error, op string) error {
	var pe *adb.PMError
	if !errors.As(err, &pe) {
		return err
	}
	hint := ""
	switch {
	case strings.HasPrefix(pe.Code, "INSTALL_FAILED_VERSION_DOWNGRADE"):
		hint = " (a newer version is installed: uninstall it first to install an older one)"
	case strings.HasPrefix(pe.Code, "INSTALL_FAILED_UPDATE_INCOMPATIBLE"):
		hint = " (the installed app is signed with other keys: uninstall it first)"
	case pe.Code == "DELETE_FAILED_INTERNAL_ERROR":
		hint = " (a preinstalled system app cannot be uninstalled)"
	}
	return &connector.Error{Code: connector.CodeToolInvokeFailed, Message: fmt.Sprintf("the phone refused to %s: %s%s", op, clipMessage(pe.Message), hint)}
}

// clipMessage bounds a phone's message in an error.
func clipMessage(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// appUninstallResult is android_app_uninstall's result.
type appUninstallResult struct {
	Package     string `json:"package"`
	Uninstalled bool   `json:"uninstalled"`
}

type appUninstallArgs struct {
	Package string `json:"package"`
}

func appUninstallTool(t *Tools) *toolDef {
	return declare(t, decl[appUninstallArgs]{
		id: policy.UninstallToolID, title: "Uninstall an app from the Android phone",
		required: []string{"package"}, run: (*Tools).runAppUninstall,
		props: map[string]any{
			"package": packageProperty("The app's package name, e.g. com.example.app (android_app_list lists them)."),
		},
		description: "Uninstalls an app from the bound phone (pm uninstall: its data goes too). A package that is not " +
			"installed: app_not_installed, so a second call for the same package answers that. Preinstalled " +
			"system apps cannot be uninstalled. The operator's package rules apply.",
	})
}

func (t *Tools) runAppUninstall(ctx context.Context, inv *invocation, a appUninstallArgs) (any, error) {
	if err := checkPackage("package", a.Package); err != nil {
		return nil, err
	}
	if err := inv.dev.Uninstall(ctx, a.Package); err != nil {
		return nil, pmRefusal(err, "uninstall")
	}
	return appUninstallResult{Package: a.Package, Uninstalled: true}, nil
}
