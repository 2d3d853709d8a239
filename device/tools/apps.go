package tools

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/parse"
)

// maxPackageBytes bounds a package name (Android's own limit, AOSP
// FrameworkParsingPackageUtils.validateName, is shorter in practice).
const maxPackageBytes = 255

// launchWait bounds how long android_app_launch waits for the app to be
// in front after am start -W has returned (a splash or trampoline
// activity may hand over a moment later).
const launchWait = 5 * time.Second

// foregroundPoll is the pause between two looks at the app in front.
const foregroundPoll = 200 * time.Millisecond

// checkPackage refuses a name that is not a Java-style package name
// (dot-separated parts of letters, digits and _, starting with a letter):
// what makes a package name safe to hand to a shell is that it holds
// nothing else. Package adb quotes it anyway.
func checkPackage(field, name string) error {
	switch {
	case name == "":
		return &argError{Field: field, Reason: "is required"}
	case len(name) > maxPackageBytes:
		return &argError{Field: field, Reason: "is longer than 255 bytes"}
	case !parse.ValidPackage(name):
		return &argError{Field: field, Reason: "is not a package name (dot-separated parts of letters, digits and _, e.g. com.example.app)"}
	}
	return nil
}

// packageProperty is the input_schema of a package argument; the syntax
// is checked by checkPackage, whose message says what is wrong.
func packageProperty(desc string) map[string]any {
	return map[string]any{"type": "string", "minLength": 1, "maxLength": maxPackageBytes, "description": desc}
}

// appEntry is one app of android_app_list.
type appEntry struct {
	Package    string `json:"package"`
	Label      string `json:"label,omitempty"` // when the phone reports it (stock Android's shell does not)
	System     bool   `json:"system"`
	Launchable bool   `json:"launchable"`
}

// appListResult is android_app_list's result.
type appListResult struct {
	Apps []appEntry `json:"apps"`
}

type appListArgs struct {
	IncludeSystem bool `json:"include_system"`
	Shelf         bool `json:"shelf"`
}

// appShelfResult is android_app_list's result with shelf: true.
type appShelfResult struct {
	Shelf []shelfEntry `json:"shelf"`
}

func appListTool(t *Tools) *toolDef {
	return declare(t, decl[appListArgs]{
		id: "android_app_list", title: "List the apps on the Android phone",
		props: map[string]any{
			"include_system": map[string]any{"type": "boolean", "description": "Also list preinstalled (system) apps. Default false."},
			"shelf":          map[string]any{"type": "boolean", "description": "List instead the APKs on the lab's shelf, which android_app_install installs (where the operator names a shelf). Default false."},
		}, readOnly: true, run: (*Tools).runAppList,
		description: "Lists the bound phone's installed apps: package, system (preinstalled), launchable (has a " +
			"launcher icon, so android_app_launch can start it without an activity), label when the phone " +
			"reports it. Launchable apps first, then by package name. include_system adds the preinstalled " +
			"ones (default: only those the user installed). shelf: true lists instead the APKs on the lab's shelf " +
			"(file, bytes, package, version_code, version_name; unreadable says why a file cannot be installed), " +
			"where the operator's policy names one (else not_permitted). Read-only.",
	})
}

func (t *Tools) runAppList(ctx context.Context, inv *invocation, a appListArgs) (any, error) {
	if a.Shelf {
		_, list, err := t.shelfList(inv)
		if err != nil {
			return nil, err
		}
		return appShelfResult{Shelf: list}, nil
	}
	apps, err := inv.dev.Apps(ctx, adb.AppsOptions{ThirdParty: !a.IncludeSystem})
	if err != nil {
		return nil, err
	}
	names := make([]string, len(apps))
	for i, p := range apps {
		names[i] = p.Package
	}
	launchable, err := inv.dev.Launchable(ctx, names)
	if err != nil {
		return nil, err
	}
	res := appListResult{Apps: make([]appEntry, len(apps))}
	for i, p := range apps {
		res.Apps[i] = appEntry{Package: p.Package, Label: p.Label, System: p.System, Launchable: launchable[p.Package]}
	}
	slices.SortStableFunc(res.Apps, func(x, y appEntry) int {
		if x.Launchable != y.Launchable {
			if x.Launchable {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Package, y.Package)
	})
	return res, nil
}

// appLaunchResult is android_app_launch's result.
type appLaunchResult struct {
	Package    string           `json:"package"`
	Activity   string           `json:"activity"` // the activity started, fully qualified
	Foreground statusForeground `json:"foreground"`
	*Verified
}

type appLaunchArgs struct {
	Package  string `json:"package"`
	Activity string `json:"activity"`
	verifyArgs
}

func appLaunchTool(t *Tools) *toolDef {
	return declare(t, decl[appLaunchArgs]{
		id: "android_app_launch", title: "Start an app on the Android phone",
		required: []string{"package"}, run: (*Tools).runAppLaunch,
		props: map[string]any{
			"package": packageProperty("The app's package name, e.g. com.android.settings (android_app_list lists them)."),
			"activity": map[string]any{"type": "string", "minLength": 1, "maxLength": 512,
				"description": "The activity to start (\".Settings\", a full class name, or package/class); default the app's launcher activity."},
		},
		description: "Starts an app on the bound phone by package name (its launcher activity, or activity), " +
			"waits until it is in front (a few seconds at most) and returns the activity started and what is in " +
			"front. A package that is not installed: app_not_installed. verify: true waits up to settle_ms for " +
			"the UI to change. Repeating a call with the same tool_call_id returns the first result without " +
			"starting the app again.",
	})
}

// component checks activity against pkg (before anything runs) and
// returns the component to start; "" means the launcher activity.
func (a *appLaunchArgs) component() (string, error) {
	if a.Activity == "" {
		return "", nil
	}
	comp := a.Activity
	if !strings.Contains(comp, "/") {
		comp = a.Package + "/" + comp
	}
	c, err := parse.ParseComponent(comp)
	if err != nil {
		return "", &argError{Field: "activity", Reason: "is not an activity name (.Main, com.example.app.Main or com.example.app/.Main)"}
	}
	if c.Package != a.Package {
		return "", &argError{Field: "activity", Reason: "names another package"}
	}
	return comp, nil
}

func (t *Tools) runAppLaunch(ctx context.Context, inv *invocation, a appLaunchArgs) (any, error) {
	if err := checkPackage("package", a.Package); err != nil {
		return nil, err
	}
	comp, err := a.component()
	if err != nil {
		return nil, err
	}
	if err := a.verifyArgs.check(); err != nil {
		return nil, err
	}
	if err := t.requireInstalled(ctx, inv.dev, a.Package); err != nil {
		return nil, err
	}
	if comp == "" {
		comp, err = inv.dev.LauncherActivity(ctx, a.Package)
		if errors.Is(err, adb.ErrNoLauncher) {
			return nil, &argError{Field: "activity", Reason: "is required: the app has no launcher activity"}
		}
		if err != nil {
			return nil, err
		}
	}
	before, err := t.beforeAction(ctx, inv, a.verifyArgs)
	if err != nil {
		return nil, err
	}
	if _, err := inv.dev.Launch(ctx, a.Package, comp); err != nil {
		if errors.Is(err, adb.ErrNoActivity) {
			return nil, &argError{Field: "activity", Reason: "is not an activity of the app"}
		}
		return nil, err
	}
	c, _ := parse.ParseComponent(comp)
	res := appLaunchResult{Package: a.Package, Activity: c.Activity}
	if res.Foreground, err = t.waitForeground(ctx, inv.dev, a.Package); err != nil {
		return nil, err
	}
	res.Verified, err = t.afterAction(ctx, inv, a.verifyArgs, before)
	return res, err
}

// waitForeground waits up to launchWait for pkg to be in front and returns
// what is in front then (another app when pkg did not come up in time).
func (t *Tools) waitForeground(ctx context.Context, d *adb.Device, pkg string) (statusForeground, error) {
	deadline := time.Now().Add(launchWait)
	for {
		p, act, err := d.ForegroundApp(ctx)
		if err != nil {
			return statusForeground{}, err
		}
		if p == pkg || time.Until(deadline) < foregroundPoll || !sleepCtx(ctx, foregroundPoll) {
			return statusForeground{Package: p, Activity: act}, nil
		}
	}
}

// requireInstalled is adb.ErrNotInstalled (app_not_installed) when pkg is
// not on the phone.
func (t *Tools) requireInstalled(ctx context.Context, d *adb.Device, pkg string) error {
	ok, err := d.Installed(ctx, pkg)
	if err != nil {
		return err
	}
	if !ok {
		return adb.ErrNotInstalled
	}
	return nil
}

// appStopResult is android_app_stop's result.
type appStopResult struct {
	Package string `json:"package"`
	Stopped bool   `json:"stopped"`
	*Verified
}

type appStopArgs struct {
	Package string `json:"package"`
	verifyArgs
}

func appStopTool(t *Tools) *toolDef {
	return declare(t, decl[appStopArgs]{
		id: "android_app_stop", title: "Force-stop an app on the Android phone",
		required: []string{"package"}, run: (*Tools).runAppStop,
		props: map[string]any{
			"package": packageProperty("The app's package name, e.g. com.example.app."),
		},
		description: "Force-stops an app on the bound phone (as Settings > Apps > Force stop: its activities, " +
			"services and alarms end; unsaved state may be lost). A package that is not installed: " +
			"app_not_installed. verify: true waits up to settle_ms for the UI to change. Repeating a call with " +
			"the same tool_call_id returns the first result without stopping the app again.",
	})
}

func (t *Tools) runAppStop(ctx context.Context, inv *invocation, a appStopArgs) (any, error) {
	if err := checkPackage("package", a.Package); err != nil {
		return nil, err
	}
	if err := a.verifyArgs.check(); err != nil {
		return nil, err
	}
	if err := t.requireInstalled(ctx, inv.dev, a.Package); err != nil {
		return nil, err
	}
	before, err := t.beforeAction(ctx, inv, a.verifyArgs)
	if err != nil {
		return nil, err
	}
	if err := inv.dev.ForceStop(ctx, a.Package); err != nil {
		return nil, err
	}
	res := appStopResult{Package: a.Package, Stopped: true}
	res.Verified, err = t.afterAction(ctx, inv, a.verifyArgs, before)
	return res, err
}
