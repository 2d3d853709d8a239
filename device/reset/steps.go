package reset

import (
	"context"
	"slices"

	"github.com/adb-connector/adb-connector/adb"
)

// notLaunched are packages a reset never force-stops: the system's own.
var notLaunched = []string{"android", "com.android.systemui", "com.android.phone"}

// resetDevice runs the policy's steps on d, each whatever the others did:
// a failed step must not leave the rest undone. base is the phone as the
// binding began: the packages running (nil: unknown, then only the app in
// front counts as launched) and the rotation settings, put back first
// (android_rotate may have changed them) whatever the policy.
func resetDevice(ctx context.Context, d *adb.Device, p Policy, base baseline) report {
	var rep report
	if base.rotation != nil {
		rep.step("rotation", restoreRotation(ctx, d, *base.rotation))
	}
	var front string
	if p.ForceStopLaunched {
		pkg, _, err := d.ForegroundApp(ctx)
		rep.step("foreground", err)
		front = pkg
	}
	if p.Home {
		rep.step("home", d.KeyEvent(ctx, "KEYCODE_HOME"))
	}
	if p.ForceStopLaunched && !rep.away {
		launched, err := launchedApps(ctx, d, front, base.running, p.Home)
		rep.step("find_launched", err)
		for _, pkg := range launched {
			err := d.ForceStop(ctx, pkg)
			rep.step("force_stop", err)
			if err == nil {
				rep.stopped = append(rep.stopped, pkg)
			}
		}
	}
	for _, pkg := range p.ClearPackages {
		if rep.away {
			break
		}
		ok, err := d.Installed(ctx, pkg)
		if err == nil && ok {
			err = d.ClearData(ctx, pkg)
			if err == nil {
				rep.cleared = append(rep.cleared, pkg)
			}
		}
		rep.step("clear", err)
	}
	if p.UninstallInstalled && base.userApps != nil && !rep.away {
		uninstallInstalled(ctx, d, base.userApps, &rep)
	}
	if p.DeleteFiles && !rep.away {
		rep.step("delete_files", d.RemoveTempFiles(ctx))
	}
	if p.ScreenOff && !rep.away {
		rep.step("screen_off", d.KeyEvent(ctx, "KEYCODE_SLEEP"))
	}
	return rep
}

// launchedApps are the apps to stop: those with a launcher entry that run
// now and did not when the binding began, and front (the app that was in
// front at the release), never the system nor the launcher: after HOME it
// is in front; without HOME it ran when the binding began, so front is
// kept only when that is not so (or unknown).
func launchedApps(ctx context.Context, d *adb.Device, front string, base []string, pressedHome bool) ([]string, error) {
	var cands []string
	if front != "" && (pressedHome || base == nil || !slices.Contains(base, front)) {
		cands = append(cands, front)
	}
	if base != nil {
		running, err := d.RunningPackages(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range running {
			if !slices.Contains(base, p) && !slices.Contains(cands, p) {
				cands = append(cands, p)
			}
		}
	}
	home := ""
	if pressedHome {
		var err error
		if home, _, err = d.ForegroundApp(ctx); err != nil {
			return nil, err
		}
	}
	cands = slices.DeleteFunc(cands, func(p string) bool { return p == home || slices.Contains(notLaunched, p) })
	if len(cands) == 0 {
		return nil, nil
	}
	apps, err := d.Launchable(ctx, cands)
	if err != nil {
		return nil, err
	}
	cands = slices.DeleteFunc(cands, func(p string) bool { return !apps[p] })
	slices.Sort(cands)
	return cands, nil
}

// restoreRotation puts back the rotation settings was, when they changed
// (a phone nobody turned costs one read).
func restoreRotation(ctx context.Context, d *adb.Device, was adb.RotationSettings) error {
	now, err := d.RotationSettings(ctx)
	if err != nil || now == was {
		return err
	}
	return d.SetRotationSettings(ctx, was)
}

// userPackages lists the user-installed packages (pm list packages -3).
func userPackages(ctx context.Context, d *adb.Device) ([]string, error) {
	apps, err := d.Apps(ctx, adb.AppsOptions{ThirdParty: true})
	if err != nil {
		return nil, err
	}
	pkgs := make([]string, len(apps))
	for i, a := range apps {
		pkgs[i] = a.Package
	}
	return pkgs, nil
}

// uninstallInstalled uninstalls the user-installed packages the phone has
// now and did not have in base: those the binding installed.
func uninstallInstalled(ctx context.Context, d *adb.Device, base []string, rep *report) {
	now, err := userPackages(ctx, d)
	rep.step("find_installed", err)
	for _, pkg := range now {
		if slices.Contains(base, pkg) {
			continue
		}
		err := d.Uninstall(ctx, pkg)
		rep.step("uninstall", err)
		if err == nil {
			rep.uninstalled = append(rep.uninstalled, pkg)
		}
	}
}
