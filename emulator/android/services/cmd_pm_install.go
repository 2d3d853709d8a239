package services

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"path"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// `pm install [-r] [-g] [-t] [-d] PATH` and `pm uninstall [-k] PACKAGE`,
// as PackageManagerShellCommand runInstall / runUninstall print them on
// Android 13: "Success", or "Failure [" + the installer's status message +
// "]" and status 1. What the phone reads of an APK (its package, version
// and requested permissions) it reads with its own small reading of the
// zip and its binary XML manifest below, never with the connector's
// decoder (adb/apk): the two are written apart, so a mistake in one shows
// as a disagreement on the same real APKs rather than agreeing by
// construction.

// installSession is the session directory the package installer names in
// its messages (PackageInstallerService: /data/app/vmdl<sessionId>.tmp).
const installSession = "/data/app/vmdl1097502863.tmp/base.apk"

// pmInstall is runInstall with a path on the phone. Messages of failures:
// not a zip: INSTALL_PARSE_FAILED_NOT_APK, as a real phone prints it
// (quoted in the public issue yizhaorong/intranet_app_manager#45); a zip
// without a readable manifest: INSTALL_PARSE_FAILED_UNEXPECTED_EXCEPTION
// with the FileNotFoundException's text (quoted in B3nac/InjuredAndroid#1);
// no v1 signature and no APK Signing Block:
// INSTALL_PARSE_FAILED_NO_CERTIFICATES (Android 13, vova7878-modules/
// PMPatch#1); a lower versionCode than the installed one:
// INSTALL_FAILED_VERSION_DOWNGRADE with PackageManagerServiceUtils
// .checkDowngrade's message; over a preinstalled app (signed with the
// platform's keys, not the APK's): INSTALL_FAILED_UPDATE_INCOMPATIBLE
// with InstallPackageHelper's message.
func pmInstall(c *shell.Ctx, s *shellArgs) (int, error) {
	// -r is ignored since Android 7 (an install always replaces); -t and
	// -d change nothing the model checks.
	opts, err := pmFlags(s, "-g", "-r", "-t", "-d")
	if err != nil {
		return 0, err
	}
	grant := opts["-g"]
	p, ok := s.nextArg()
	if !ok {
		c.Printf("Error: must either specify a package size or an APK file\n")
		return 1, nil
	}
	d := phone(c)
	data, err := d.FS.ReadFile(path.Clean(p))
	if err != nil {
		c.Printf("Error: Can't open file: %s\n", p)
		return 1, nil
	}
	if !c.Charge(d.Prof.InstallCost(int64(len(data)))) {
		return 1, nil
	}
	m, failure := readAPK(data)
	if failure != "" {
		c.Printf("Failure [%s]\n", failure)
		return 1, nil
	}
	d.Lock()
	defer d.Unlock()
	if old, ok := d.Scenario.AppByPackage(m.pkg); ok {
		switch {
		case old.System || old.VersionCode == 0:
			c.Printf("Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Existing package %s signatures do not match newer version; ignoring!]\n", m.pkg)
			return 1, nil
		case m.code < old.VersionCode:
			c.Printf("Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code %d is older than current %d]\n", m.code, old.VersionCode)
			return 1, nil
		}
		// An update stops the app, keeps its data and grants.
		d.ForceStopLocked(m.pkg)
	}
	app := ui.App{Package: m.pkg, Label: m.pkg, NoLauncher: true, VersionCode: m.code, VersionName: m.name, Permissions: m.perms}
	apps := slices.DeleteFunc(slices.Clone(d.Scenario.Apps), func(a ui.App) bool { return a.Package == m.pkg })
	d.Scenario.Apps = append(apps, app)
	if grant {
		if d.State.Granted == nil {
			d.State.Granted = map[string]bool{}
		}
		for _, perm := range m.perms {
			if runtimePermissions[perm] {
				d.State.Granted[m.pkg+" "+perm] = true
			}
		}
	}
	d.State.Version++
	c.Printf("Success\n")
	return 0, nil
}

// pmUninstall is runUninstall without --user (Android 9+: every user). A
// package the phone does not have, and a preinstalled one (which only a
// --user uninstall hides), fail in the delete observer with
// DELETE_FAILED_INTERNAL_ERROR.
func pmUninstall(c *shell.Ctx, s *shellArgs) (int, error) {
	if _, err := pmFlags(s, "-k"); err != nil {
		return 0, err
	}
	pkg, ok := s.nextArg()
	if !ok {
		c.Printf("Error: package name not specified\n")
		return 1, nil
	}
	d := phone(c)
	d.Lock()
	defer d.Unlock()
	app, known := d.Scenario.AppByPackage(pkg)
	if !known || app.System || app.VersionCode == 0 {
		c.Printf("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
		return 1, nil
	}
	d.ForceStopLocked(pkg)
	d.Scenario.Apps = slices.DeleteFunc(slices.Clone(d.Scenario.Apps), func(a ui.App) bool { return a.Package == pkg })
	for k := range d.State.Granted {
		if strings.HasPrefix(k, pkg+" ") {
			delete(d.State.Granted, k)
		}
	}
	d.State.Version++
	c.Printf("Success\n")
	return 0, nil
}

// pmFlags reads the leading options, each one of allowed (a flag without
// a value); another is the IllegalArgumentException makeInstallParams and
// runUninstall throw.
func pmFlags(s *shellArgs, allowed ...string) (map[string]bool, error) {
	got := map[string]bool{}
	for {
		opt, err := s.nextOption()
		switch {
		case err != nil:
			return nil, err
		case opt == "":
			return got, nil
		case !slices.Contains(allowed, opt):
			return nil, illegalArgument("Unknown option %s", opt)
		}
		got[opt] = true
	}
}

// apkInfo is what the phone's package parser takes from an APK.
type apkInfo struct {
	pkg   string
	code  int64
	name  string
	perms []string
}

// readAPK reads data as the package parser would, or returns the failure
// message pm prints.
func readAPK(data []byte) (apkInfo, string) {
	notAPK := "INSTALL_PARSE_FAILED_NOT_APK: Failed to parse " + installSession + ": Failed to load asset path " + installSession
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return apkInfo{}, notAPK
	}
	badManifest := "INSTALL_PARSE_FAILED_UNEXPECTED_EXCEPTION: Failed to parse " + installSession + ": AndroidManifest.xml"
	f, err := z.Open("AndroidManifest.xml")
	if err != nil {
		return apkInfo{}, badManifest
	}
	xml, err := io.ReadAll(io.LimitReader(f, 8<<20))
	f.Close()
	if err != nil {
		return apkInfo{}, badManifest
	}
	m, ok := scanManifest(xml)
	if !ok {
		return apkInfo{}, "INSTALL_PARSE_FAILED_MANIFEST_MALFORMED: Failed to parse " + installSession
	}
	if !signed(z, data) {
		return apkInfo{}, "INSTALL_PARSE_FAILED_NO_CERTIFICATES: Failed to collect certificates from " + installSession + ": Attempt to get length of null array"
	}
	return m, ""
}

// signed: a JAR signature (META-INF/*.RSA, .DSA or .EC, APK signature
// scheme v1) or an APK Signing Block (v2+, whose magic is "APK Sig Block
// 42" before the central directory).
func signed(z *zip.Reader, data []byte) bool {
	for _, f := range z.File {
		if dir, name := path.Split(f.Name); dir == "META-INF/" {
			switch strings.ToUpper(path.Ext(name)) {
			case ".RSA", ".DSA", ".EC":
				return true
			}
		}
	}
	return bytes.Contains(data, []byte("APK Sig Block 42"))
}

// scanManifest walks the binary XML's chunks for the string pool, then
// takes from the start tags: <manifest>'s package, versionCode and
// versionName, and each <uses-permission>'s name. Attributes are matched
// by name only; a value that is not a string or an integer is left out.
func scanManifest(b []byte) (apkInfo, bool) {
	le := binary.LittleEndian
	var (
		m       apkInfo
		strs    []string
		seenTop bool
	)
	str := func(i uint32) string {
		if int64(i) < int64(len(strs)) {
			return strs[i]
		}
		return ""
	}
	for off := 8; off+8 <= len(b); {
		typ, hdr, size := le.Uint16(b[off:]), int(le.Uint16(b[off+2:])), int(le.Uint32(b[off+4:]))
		if size < 8 || off+size > len(b) || hdr > size {
			return apkInfo{}, false
		}
		body := b[off : off+size]
		switch typ {
		case 0x0001: // string pool
			strs = poolStrings(body)
		case 0x0102: // start tag
			if hdr+20 > size {
				return apkInfo{}, false
			}
			ext := body[hdr:]
			tag := str(le.Uint32(ext[4:]))
			first, step, n := int(le.Uint16(ext[8:])), int(le.Uint16(ext[10:])), int(le.Uint16(ext[12:]))
			if !seenTop && tag != "manifest" {
				return apkInfo{}, false
			}
			seenTop = true
			for i := 0; i < n && first+(i+1)*step <= len(ext) && step >= 20; i++ {
				at := ext[first+i*step:]
				key, kind, val := str(le.Uint32(at[4:])), at[15], le.Uint32(at[16:])
				text := str(le.Uint32(at[8:]))
				if kind == 0x03 {
					text = str(val)
				}
				switch {
				case tag == "manifest" && key == "package":
					m.pkg = text
				case tag == "manifest" && key == "versionCode" && (kind == 0x10 || kind == 0x11):
					m.code = int64(val)
				case tag == "manifest" && key == "versionName":
					m.name = text
				case tag == "uses-permission" && key == "name" && text != "":
					m.perms = append(m.perms, text)
				}
			}
		}
		off += size
	}
	return m, m.pkg != "" && m.code > 0
}

// poolStrings decodes every string of a string pool chunk (UTF-8 when
// flag 0x100 is set, else UTF-16); one that does not fit is "".
func poolStrings(c []byte) []string {
	le := binary.LittleEndian
	if len(c) < 28 {
		return nil
	}
	n, utf8, start := int(le.Uint32(c[8:])), le.Uint32(c[16:])&0x100 != 0, int(le.Uint32(c[20:]))
	hdr := int(le.Uint16(c[2:]))
	if n > len(c)/4 || hdr+4*n > len(c) {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		at := start + int(le.Uint32(c[hdr+4*i:]))
		if at < 0 || at+2 > len(c) {
			continue
		}
		s := c[at:]
		if utf8 {
			// Two lengths (UTF-16 units, then bytes), each 1 or 2 bytes.
			skip := 1 + int(s[0]>>7)
			if skip+2 > len(s) {
				continue
			}
			s = s[skip:]
			l, k := int(s[0]), 1
			if s[0]&0x80 != 0 {
				l, k = int(s[0]&0x7f)<<8|int(s[1]), 2
			}
			if k+l <= len(s) {
				out[i] = string(s[k : k+l])
			}
			continue
		}
		l, k := int(le.Uint16(s)), 2
		if l&0x8000 != 0 && len(s) >= 4 {
			l, k = (l&0x7fff)<<16|int(le.Uint16(s[2:])), 4
		}
		if k+2*l <= len(s) {
			u := make([]uint16, l)
			for j := range u {
				u[j] = le.Uint16(s[k+2*j:])
			}
			out[i] = string(utf16.Decode(u))
		}
	}
	return out
}
