package tools

import (
	"context"
	"regexp"
	"slices"
)

// permissionRe is an android.permission.* name: what the argument may
// hold, so it is safe to hand to a shell (package adb quotes it anyway).
var permissionRe = regexp.MustCompile(`^android\.permission\.[A-Z][A-Z0-9_]{0,127}$`)

// permissionResult is android_permission's result: the state read back.
type permissionResult struct {
	Package    string `json:"package"`
	Permission string `json:"permission"`
	Granted    bool   `json:"granted"`
}

type permissionArgs struct {
	Package    string `json:"package"`
	Permission string `json:"permission"`
	Grant      bool   `json:"grant"`
}

func permissionTool(t *Tools) *toolDef {
	return declare(t, decl[permissionArgs]{
		id: "android_permission", title: "Grant or revoke an app's permission on the Android phone",
		required: []string{"package", "permission", "grant"}, run: (*Tools).runPermission,
		props: map[string]any{
			"package": packageProperty("The app's package name, e.g. com.example.app."),
			"permission": map[string]any{"type": "string", "minLength": 20, "maxLength": 147, "pattern": `^android\.permission\.[A-Z][A-Z0-9_]*$`,
				"description": "A runtime android.permission.* name the app requests, e.g. android.permission.CAMERA."},
			"grant": map[string]any{"type": "boolean", "description": "true grants the permission, false revokes it."},
		},
		description: "Grants or revokes a runtime permission of an app on the bound phone (instead of answering " +
			"its dialog) and returns the state read back from the phone. The permission must be one the app " +
			"requests and a runtime one (install permissions such as INTERNET cannot change): otherwise " +
			"invalid_arguments and nothing changes. An app not installed: app_not_installed. Revoking a permission " +
			"stops the app if it runs. Repeating a call changes nothing more.",
	})
}

func (t *Tools) runPermission(ctx context.Context, inv *invocation, a permissionArgs) (any, error) {
	if err := checkPackage("package", a.Package); err != nil {
		return nil, err
	}
	if !permissionRe.MatchString(a.Permission) {
		return nil, &argError{Field: "permission", Reason: "is not an android.permission.* name (e.g. android.permission.CAMERA)"}
	}
	d := inv.dev
	before, err := d.Permissions(ctx, a.Package)
	if err != nil {
		return nil, err
	}
	granted, runtime := before.Runtime[a.Permission]
	switch {
	case !slices.Contains(before.Requested, a.Permission):
		return nil, &argError{Field: "permission", Reason: "is not requested by " + a.Package + "; nothing was changed"}
	case !runtime:
		return nil, &argError{Field: "permission", Reason: "is not a runtime permission of " + a.Package + " (granted at install, it cannot change); nothing was changed"}
	}
	if granted != a.Grant {
		if err := d.SetPermission(ctx, a.Package, a.Permission, a.Grant); err != nil {
			return nil, err
		}
	}
	after, err := d.Permissions(ctx, a.Package)
	if err != nil {
		return nil, err
	}
	return permissionResult{Package: a.Package, Permission: a.Permission, Granted: after.Runtime[a.Permission]}, nil
}
