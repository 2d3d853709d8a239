package services

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// The ADB Keyboard IME (package com.android.adbkeyboard) is how labs type
// non-ASCII text: select it with `ime set`, then send broadcasts
// (`am broadcast -a ADB_INPUT_TEXT --es msg TEXT`, ADB_INPUT_B64,
// ADB_INPUT_CODE --ei code N, ADB_CLEAR_TEXT). It only works when the
// scenario installs the package and it is the selected input method.
const (
	latinIME = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
	adbIME   = "com.android.adbkeyboard/.AdbIME"
)

// IME state lives in the secure settings, as on a phone, so `settings get
// secure ...` and the ime/dumpsys commands agree: default_input_method is
// the selected IME, enabled_input_methods the ':'-separated enabled ones.
// Until something writes enabled_input_methods, the enabled set is the
// selected IME plus ADB Keyboard when the scenario installs it: a lab phone
// set up for typing has run `ime enable` for it once.
const (
	settingIME        = "secure/default_input_method"
	settingEnabledIME = "secure/enabled_input_methods"
)

// imeInstalled returns the installed input method ids (immutable).
func imeInstalled(d *model.Phone) []string {
	ids := []string{latinIME}
	if _, ok := d.Scenario.AppByPackage("com.android.adbkeyboard"); ok {
		ids = append(ids, adbIME)
	}
	return ids
}

// imeEnabled returns the enabled input method ids (the model locked).
func imeEnabled(d *model.Phone) []string {
	v, ok := d.State.Settings[settingEnabledIME]
	if !ok {
		v = d.State.Settings[settingIME]
		if _, adb := d.Scenario.AppByPackage("com.android.adbkeyboard"); adb && v != adbIME {
			v += ":" + adbIME
		}
	}
	var ids []string
	for _, id := range strings.Split(v, ":") {
		id, _, _ = strings.Cut(id, ";") // subtype ids follow ';'
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// keyboardShown reports whether the soft keyboard is up: a text field has
// focus on an unlocked, lit screen (the model locked).
func keyboardShown(d *model.Phone) bool {
	return d.State.Focus != "" && d.State.ScreenOn && !d.State.Locked
}

// Ime is /system/bin/ime, a script running `cmd input_method ime "$@"`.
func Ime(c *shell.Ctx) int { return inputMethodCommand(c, append([]string{"ime"}, c.Args[1:]...)) }

// inputMethodCommand is InputMethodManagerService.ShellCommandImpl
// (frameworks/base/services/core/java/com/android/server/inputmethod/
// InputMethodManagerService.java, Android 13/14): `ime list [-a] [-s]`,
// `ime enable|disable|set [--user N] ID`, `ime reset`. Failures go to
// stderr with status -1 (255); unknown subcommands to stdout.
func inputMethodCommand(c *shell.Ctx, args []string) int {
	s := &shellArgs{args: args}
	cmd, _ := s.nextArg()
	if cmd != "ime" {
		if cmd == "" || cmd == "help" || cmd == "-h" {
			imeServiceHelp(c)
			return 255 // handleDefaultCommands returns -1 after the help
		}
		c.Printf("Unknown command: %s\n", cmd)
		return 255
	}
	sub, _ := s.nextArg()
	var status int
	var err error
	switch sub {
	case "", "-h", "help":
		imeHelp(c)
		return 0
	case "list":
		status = imeListCmd(c, s)
	case "enable", "disable", "set":
		status, err = imeChange(c, s, sub)
	case "reset":
		phone(c).Lock()
		phone(c).State.Settings[settingIME] = latinIME
		phone(c).State.Settings[settingEnabledIME] = latinIME // the system IMEs only
		phone(c).Unlock()
		c.Printf("Reset current and enabled IMEs for user #0\n  Selected: %s\n   Enabled: %s\n", latinIME, latinIME)
	default:
		c.Printf("Unknown command: %s\n", sub)
		return 255
	}
	if e := (*shellError)(nil); errors.As(err, &e) {
		return javaException(c, "ime", e,
			"com.android.modules.utils.BasicShellCommandHandler.getNextArgRequired(BasicShellCommandHandler.java:295)",
			"com.android.server.inputmethod.InputMethodManagerService$ShellCommandImpl.onCommandWithSystemIdentity(InputMethodManagerService.java:6114)",
			"com.android.server.inputmethod.InputMethodManagerService$ShellCommandImpl.onCommand(InputMethodManagerService.java:6045)")
	}
	return status
}

// imeHelp is the ShellCommandImpl's "ime help": an IndentingPrintWriter
// ("  " per level, wrap length 100), which cuts the long "reset" line hard
// at 96 characters.
func imeHelp(c *shell.Ctx) {
	c.Printf("ime <command>:\n" +
		"  list [-a] [-s]\n    prints all enabled input methods.\n      -a: see all input methods\n      -s: only a single summary line of each\n" +
		"  enable [--user <USER_ID>] <ID>\n    allows the given input method ID to be used.\n      --user <USER_ID>: Specify which user to enable. Assumes the current user if not specified.\n" +
		"  disable [--user <USER_ID>] <ID>\n    disallows the given input method ID to be used.\n      --user <USER_ID>: Specify which user to disable. Assumes the current user if not specified.\n" +
		"  set [--user <USER_ID>] <ID>\n    switches to the given input method ID.\n      --user <USER_ID>: Specify which user to enable. Assumes the current user if not specified.\n" +
		"  reset [--user <USER_ID>]\n    reset currently selected/enabled IMEs to the default ones as if the device is initially booted w\n    ith the current locale.\n      --user <USER_ID>: Specify which user to reset. Assumes the current user if not specified.\n")
}

// imeServiceHelp is ShellCommandImpl.onHelp, printed (status -1) for
// `cmd input_method` without a command.
func imeServiceHelp(c *shell.Ctx) {
	c.Printf("InputMethodManagerService commands:\n  help\n    Prints this help text.\n  dump [options]\n    Synonym of dumpsys.\n" +
		"  ime <command> [options]\n    Manipulate IMEs.  Run \"ime help\" for details.\n" +
		"  tracing <command>\n    start: Start tracing.\n    stop : Stop tracing.\n    help : Show help.\n")
}

// imeListCmd is handleShellCommandListInputMethods; unknown options are
// ignored, as there.
func imeListCmd(c *shell.Ctx, s *shellArgs) int {
	all, brief := false, false
	for {
		opt, err := s.nextOption()
		if err != nil || opt == "" {
			break
		}
		switch opt {
		case "-a":
			all = true
		case "-s":
			brief = true
		case "-u", "--user":
			s.nextArg()
		}
	}
	phone(c).Lock()
	ids := imeEnabled(phone(c))
	phone(c).Unlock()
	if all {
		ids = imeInstalled(phone(c))
	}
	for _, id := range ids {
		if brief {
			c.Printf("%s\n", id)
			continue
		}
		c.Printf("%s:\n", id)
		imeInfoDump(c, id, "  ")
	}
	return 0
}

// imeInfoDump prints InputMethodInfo.dump's leading lines (Android 13).
func imeInfoDump(c *shell.Ctx, id, prefix string) {
	pkg, cls, _ := strings.Cut(id, "/")
	c.Printf("%smId=%s mSettingsActivityName=null mIsVrOnly=false mSupportsSwitchingToNextInputMethod=false mInlineSuggestionsEnabled=false mSupportsInlineSuggestionsWithTouchExploration=false mSuppressesSpellChecker=false mShowInInputMethodPicker=true mSupportsStylusHandwriting=false\n", prefix, id)
	c.Printf("%smIsDefaultResId=0x0\n%sService:\n", prefix, prefix)
	c.Printf("%s  priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n%s  ServiceInfo:\n", prefix, prefix)
	c.Printf("%s    name=%s\n%s    packageName=%s\n%s    enabled=true exported=true directBootAware=false\n%s    permission=android.permission.BIND_INPUT_METHOD\n",
		prefix, ui.FullActivity(pkg, cls), prefix, pkg, prefix, prefix)
}

// imeChange is handleShellCommandEnableDisableInputMethod and
// handleShellCommandSetInputMethod: setting needs an installed and enabled
// IME, enabling an installed one.
func imeChange(c *shell.Ctx, s *shellArgs, sub string) (int, error) {
	for {
		opt, err := s.nextOption()
		if err != nil {
			return 0, err
		}
		if opt == "" {
			break
		}
		if opt == "--user" || opt == "-u" {
			if _, err := s.nextArgRequired(); err != nil {
				return 0, err
			}
		}
	}
	id, err := s.nextArgRequired()
	if err != nil {
		return 0, err
	}
	d := phone(c)
	d.Lock()
	defer d.Unlock()
	installed := slices.Contains(imeInstalled(d), id)
	enabled := imeEnabled(d)
	was := slices.Contains(enabled, id)
	switch sub {
	case "set":
		if !installed || !was {
			c.Errorf("Unknown input method %s cannot be selected for user #0\n", id)
			return 255, nil
		}
		d.State.Settings[settingIME] = id
		d.Changed()
		c.Printf("Input method %s selected for user #0\n", id)
		return 0, nil
	case "enable":
		if !installed {
			c.Errorf("Unknown input method %s cannot be enabled for user #0\n", id)
			return 255, nil
		}
		if !was {
			enabled = append(enabled, id)
		}
	case "disable":
		enabled = slices.DeleteFunc(enabled, func(e string) bool { return e == id })
	}
	d.State.Settings[settingEnabledIME] = strings.Join(enabled, ":")
	state := map[bool]string{true: "already ", false: "now "}[was == (sub == "enable")]
	c.Printf("Input method %s: %s%sd for user #0\n", id, state, sub)
	return 0, nil
}

// dumpInputMethod is InputMethodManagerService.dumpAsStringNoCheck
// (Android 13; 14 where noted) cut to the lines tools read (mCurMethodId, mCurId,
// mInputShown, mEnabledInputMethodsStrCache), then the IME's own
// InputMethodService.dump (mIsInputViewShown). The model is locked.
func dumpInputMethod(d *model.Phone, c *shell.Ctx) {
	cur := d.State.Settings[settingIME]
	enabled := imeEnabled(d)
	shown := keyboardShown(d)
	pkg, _ := d.Foreground()
	uid := appUID(d, pkg)
	client := fmt.Sprintf("ClientState{%s uid %d pid %d}", model.ObjID("client", pkg), uid, 4000+uid%1000)
	c.Printf("Current Input Method Manager state:\n  Input Methods: mMethodMapUpdateCount=%d\n", len(imeInstalled(d)))
	for i, id := range imeInstalled(d) {
		c.Printf("  InputMethod #%d:\n", i)
		imeInfoDump(c, id, "    ")
	}
	c.Printf("  mCurMethodId=%s\n", cur)
	c.Printf("  mCurSeq=%d mCurClient=%s\n", 10+d.State.Version%1000, client)
	c.Printf("  mCurFocusedWindow=Window{%s u0 %s} softInputMode=STATE_UNSPECIFIED|ADJUST_RESIZE|IS_FORWARD_NAVIGATION client=%s\n", model.ObjID("w", pkg), pkg, client)
	c.Printf("  mCurId=%s mHaveConnection=true mBoundToMethod=true mVisibleBound=%t\n", cur, shown)
	c.Printf("  mCurToken=android.os.Binder@%s\n  mCurTokenDisplayId=0\n  mCurHostInputToken=null\n", model.ObjID("token", cur))
	c.Printf("  mCurIntent=Intent { act=android.view.InputMethod cmp=%s (has extras) }\n", cur)
	if d.SDK >= 34 {
		// Android 14 moved the visibility state to
		// ImeVisibilityStateComputer.dump, mInputShown on its own line.
		c.Printf(" mRequestedShowExplicitly=false mShowForced=false\n  mImeHiddenByDisplayPolicy=false\n  mInputShown=%t\n", shown)
	} else {
		c.Printf("  mShowRequested=%t mShowExplicitlyRequested=false mShowForced=false mInputShown=%t\n", shown, shown)
	}
	c.Printf("  mInFullscreenMode=false\n  mSystemReady=true mInteractive=%t\n", d.State.ScreenOn)
	c.Printf("  mSettingsObserver=SettingsObserver{mUserId=0 mRegistered=true mLastEnabled=%s}\n", strings.Join(enabled, ":"))
	if d.SDK < 34 {
		c.Printf("  mImeHiddenByDisplayPolicy=false\n")
	}
	c.Printf("  mSettings:\n    mCurrentUserId=0\n    mCurrentProfileIds=[0]\n    mCopyOnWrite=false\n")
	c.Printf("    mEnabledInputMethodsStrCache=%s\n", strings.Join(enabled, ":"))
	imePkg, imeCls, _ := strings.Cut(cur, "/")
	c.Printf("\nInput method service state for %s@%s:\n", ui.FullActivity(imePkg, imeCls), model.ObjID("ims", cur))
	c.Printf("  mWindowCreated=true mWindowAdded=true\n  mWindowVisible=%t mWindowWasVisible=%t mInShowWindow=false\n", shown, shown)
	c.Printf("  mInputStarted=true mInputViewStarted=%t mCandidatesViewStarted=false\n", shown)
	c.Printf("  mShowInputRequested=%t mLastShowInputRequested=%t mShowInputFlags=0x0\n", shown, shown)
	c.Printf("  mIsInputViewShown=%t mStatusIcon=0\n", shown)
}

// amBroadcast handles `am broadcast -a ACTION [--es k v] [--ei k n]`.
func amBroadcast(c *shell.Ctx) int {
	var action string
	extras := map[string]string{}
	args := c.Args[2:]
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-a":
			if i+1 < len(args) {
				action = args[i+1]
				i++
			}
		case "--es", "--ei", "-e":
			if i+2 < len(args) {
				extras[args[i+1]] = args[i+2]
				i += 2
			}
		}
	}
	flags := "flg=0x400000"
	if len(extras) > 0 {
		flags += " (has extras)"
	}
	c.Printf("Broadcasting: Intent { act=%s %s }\n", action, flags)
	d := phone(c)
	d.Lock()
	if d.State.Settings[settingIME] == adbIME {
		switch action {
		case "ADB_INPUT_TEXT":
			d.TypeLocked(extras["msg"])
		case "ADB_INPUT_B64":
			if b, err := base64.StdEncoding.DecodeString(extras["msg"]); err == nil {
				d.TypeLocked(string(b))
			}
		case "ADB_INPUT_CODE":
			if n, err := strconv.Atoi(extras["code"]); err == nil {
				d.KeyLocked(n)
			}
		case "ADB_CLEAR_TEXT":
			if d.State.Focus != "" {
				d.State.Fields[d.State.Focus] = ""
				d.Changed()
			}
		}
	}
	d.Unlock()
	c.Printf("Broadcast completed: result=0\n")
	return 0
}
