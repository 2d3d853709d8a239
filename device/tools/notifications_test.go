package tools

import (
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/emulator/android"
)

func TestNotificationsOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 1, func(c *Config) {
		c.Policy = policyHolder(t, "policies:\n  default:\n    packages: {deny: [com.android.vending]}\n")
	})
	ph := e.device(0).Android()
	ch := devChannel(0)
	ph.PostNotification(android.NotificationSpec{Package: "com.android.vending", Title: "Update ready", Text: "secret app"})
	ph.PostNotification(android.NotificationSpec{Package: "com.android.systemui", Title: "Charging", Text: "100%", Ongoing: true})
	ph.PostNotification(android.NotificationSpec{Package: "com.example.login", Title: "Code", Text: "Ваш код 4711 (語)"})

	var got notificationsResult
	mustOK(t, e.call(t, t.Context(), ch, "android_notifications", `{"action":"list"}`, "", nil), &got)
	if got.Omitted != 1 || len(got.Notifications) != 2 {
		t.Fatalf("list %+v, want 2 shown and 1 omitted", got)
	}
	n0, n1 := got.Notifications[0], got.Notifications[1]
	if n0.Package != "com.example.login" || n0.Title != "Code" || n0.Text != "Ваш код 4711 (語)" || n0.Ongoing || n0.PostedAt == "" ||
		!strings.Contains(n0.Key, "|com.example.login|") {
		t.Errorf("first %+v", n0)
	}
	if n1.Package != "com.android.systemui" || !n1.Ongoing {
		t.Errorf("second %+v", n1)
	}
	for _, n := range got.Notifications {
		if strings.Contains(n.Text, "secret") {
			t.Errorf("a denied package's notification shown: %+v", n)
		}
	}

	var shade shadeResult
	mustOK(t, e.call(t, t.Context(), ch, "android_notifications", `{"action":"open"}`, "", nil), &shade)
	if shade.Shade != "open" || !ph.ShadeOpen() {
		t.Errorf("open: %+v, phone shade open %v", shade, ph.ShadeOpen())
	}
	mustOK(t, e.call(t, t.Context(), ch, "android_notifications", `{"action":"close"}`, "", nil), &shade)
	if shade.Shade != "closed" || ph.ShadeOpen() {
		t.Errorf("close: %+v, phone shade open %v", shade, ph.ShadeOpen())
	}

	ph.ClearCommands()
	for _, args := range []string{`{}`, `{"action":"clear"}`, `{"action":"list","package":"x"}`} {
		a := e.call(t, t.Context(), ch, "android_notifications", args, "", nil)
		if a.Err == nil || a.Err.Code != connector.CodeInvalidArguments {
			t.Errorf("%s: %+v, want invalid_arguments", args, a)
		}
	}
	if cmds := ph.Commands(); len(cmds) != 0 {
		t.Errorf("bad arguments ran %d commands, first %q", len(cmds), cmds[0].Line)
	}
}

func TestNotificationsPolicyOff(t *testing.T) {
	e := newToolsEnv(t, 1, func(c *Config) {
		c.Policy = policyHolder(t, "policies:\n  default: {notifications: false}\n")
	})
	ph := e.device(0).Android()
	ph.ClearCommands()
	for _, action := range []string{"list", "open"} {
		a := e.call(t, t.Context(), devChannel(0), "android_notifications", `{"action":"`+action+`"}`, "", nil)
		if a.Err == nil || a.Err.Code != codeNotPermitted || !strings.Contains(a.Err.Message, "notifications") {
			t.Errorf("%s: %+v, want not_permitted", action, a)
		}
	}
	for _, c := range ph.Commands() {
		if strings.Contains(c.Line, "notification") || strings.Contains(c.Line, "statusbar") {
			t.Errorf("ran %q", c.Line)
		}
	}
}
