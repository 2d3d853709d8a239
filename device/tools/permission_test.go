package tools

import (
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/connector"
)

func TestPermissionOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	ph := e.device(0).Android()
	ch := devChannel(0)
	pmRan := func() []string {
		var out []string
		for _, c := range ph.Commands() {
			if strings.HasPrefix(c.Line, "pm ") {
				out = append(out, c.Line)
			}
		}
		return out
	}
	call := func(args string) ackOf { return e.call(t, t.Context(), ch, "android_permission", args, "", nil) }
	for _, step := range []struct {
		grant bool
		pm    int // pm commands the call runs
	}{{true, 1}, {true, 0}, {false, 1}, {false, 0}} {
		ph.ClearCommands()
		var got permissionResult
		args := `{"package":"com.example.login","permission":"android.permission.CAMERA","grant":` + map[bool]string{true: "true", false: "false"}[step.grant] + `}`
		mustOK(t, call(args), &got)
		want := permissionResult{Package: "com.example.login", Permission: "android.permission.CAMERA", Granted: step.grant}
		if got != want {
			t.Errorf("%s: %+v, want %+v", args, got, want)
		}
		if ran := pmRan(); len(ran) != step.pm {
			t.Errorf("%s ran %q, want %d pm commands", args, ran, step.pm)
		}
	}

	for _, tc := range []struct{ args, code, want string }{
		{`{"package":"com.example.login","permission":"android.permission.INTERNET","grant":true}`, connector.CodeInvalidArguments, "not a runtime permission"},
		{`{"package":"com.example.login","permission":"android.permission.RECORD_AUDIO","grant":true}`, connector.CodeInvalidArguments, "not requested"},
		{`{"package":"com.nope.app","permission":"android.permission.CAMERA","grant":true}`, codeAppNotInstalled, ""},
		{`{"package":"com.example.login;reboot","permission":"android.permission.CAMERA","grant":true}`, connector.CodeInvalidArguments, "package"},
		{`{"package":"com.example.login","permission":"android.permission.CAMERA;reboot","grant":true}`, connector.CodeInvalidArguments, "permission"},
		{`{"package":"com.example.login","permission":"com.example.login.MINE","grant":true}`, connector.CodeInvalidArguments, "permission"},
		{`{"package":"com.example.login","permission":"android.permission.CAMERA"}`, connector.CodeInvalidArguments, "grant"},
	} {
		ph.ClearCommands()
		a := call(tc.args)
		if a.Err == nil || a.Err.Code != tc.code || !strings.Contains(a.Err.Message, tc.want) {
			t.Errorf("%s: %+v, want %s with %q", tc.args, a, tc.code, tc.want)
		}
		if ran := pmRan(); len(ran) != 0 {
			t.Errorf("%s ran %q", tc.args, ran)
		}
	}
}
