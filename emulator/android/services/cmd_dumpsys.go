package services

import (
	"fmt"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// Dumpsys prints the services the connector reads. Formats follow
// Android 12-13 (SDK 31-33); where older releases differ, the SDK set in
// Config selects the older lines (noted at each place).
func Dumpsys(c *shell.Ctx) int {
	if len(c.Args) < 2 {
		c.Errorf("dumpsys: need a service name (the full dump is not emulated)\n")
		return 1
	}
	d := phone(c)
	d.Lock()
	defer d.Unlock()
	switch c.Args[1] {
	case "battery":
		dumpBattery(d, c)
	case "window":
		dumpWindow(d, c, c.Args[2:])
	case "activity":
		dumpActivity(d, c)
	case "power":
		dumpPower(d, c)
	case "input":
		dumpInput(d, c)
	case "display":
		dumpDisplay(d, c)
	case "SurfaceFlinger":
		dumpSurfaceFlinger(d, c, c.Args[2:])
	case "input_method":
		dumpInputMethod(d, c)
	case "notification":
		dumpNotification(d, c, c.Args[2:])
	case "package":
		dumpPackage(d, c, c.Args[2:])
	default:
		// frameworks/native/cmds/dumpsys/dumpsys.cpp: "Can't find
		// service: NAME" on stderr, and the status stays 0.
		c.Errorf("Can't find service: %s\n", c.Args[1])
	}
	return 0
}

// dumpBattery: BatteryService. "Dock powered" appears from Android 13.
func dumpBattery(d *model.Phone, c *shell.Ctx) {
	b := d.State.Battery
	status := 3 // BATTERY_STATUS_DISCHARGING
	if b.ACPowered || b.USBPowered {
		status = 2 // CHARGING
		if b.Level >= 100 {
			status = 5 // FULL
		}
	}
	c.Printf("Current Battery Service state:\n")
	c.Printf("  AC powered: %t\n  USB powered: %t\n  Wireless powered: false\n", b.ACPowered, b.USBPowered)
	if d.SDK >= 33 {
		c.Printf("  Dock powered: false\n")
	}
	maxCur := 0
	if b.ACPowered || b.USBPowered {
		maxCur = 500000
	}
	c.Printf("  Max charging current: %d\n  Max charging voltage: %d\n  Charge counter: %d\n", maxCur, 5000000, b.Level*40000)
	c.Printf("  status: %d\n  health: 2\n  present: true\n  level: %d\n  scale: 100\n  voltage: %d\n  temperature: %d\n  technology: Li-ion\n",
		status, b.Level, 3600+b.Level*6, b.Temperature)
}

// focusLines returns the mCurrentFocus window name and the mFocusedApp
// ActivityRecord text.
func activityRecord(d *model.Phone) (rec string, pkg, act string, taskID int) {
	t := d.Top()
	pkg, act = d.Foreground()
	return fmt.Sprintf("ActivityRecord{%s u0 %s t%d}", model.ObjID("ar", t.ID, act), ui.ShortActivity(pkg, act), t.ID), pkg, act, t.ID
}

// dumpWindow: WindowManagerService. Sections "policy", "displays",
// "windows" (also "p", "d", "w"); no argument prints all. Android 10+
// (SDK >= 29) prints the KeyguardServiceDelegate block (showing=,
// screenState=), focus lines under the display and a DisplayRotation block
// ("mRotation=N mDeferredRotationPauseCount=0"); older releases print
// mShowingLockscreen=, isStatusBarKeyguard=, mScreenOnFully= and
// "mRotation=N mAltOrientation=false", focus under the window list, and
// mFocusedApp as an AppWindowToken.
func dumpWindow(d *model.Phone, c *shell.Ctx, args []string) {
	sect := ""
	if len(args) > 0 {
		sect = args[0]
	}
	all := sect == "" || sect == "-a"
	modern := d.SDK >= 29
	rec, pkg, act, _ := activityRecord(d)
	on, locked := d.State.ScreenOn, d.State.Locked
	win := fmt.Sprintf("Window{%s u0 %s/%s}", model.ObjID("w", pkg, act), pkg, act)
	if locked {
		name := "NotificationShade" // Android 11+ SystemUI window title
		if d.SDK < 30 {
			name = "StatusBar"
		}
		win = fmt.Sprintf("Window{%s u0 %s}", model.ObjID(name), name)
	}
	if d.State.ANR != "" && !locked {
		// The ANR dialog's window title (AppNotRespondingDialog).
		win = fmt.Sprintf("Window{%s u0 Application Not Responding: %s}", model.ObjID("anr", d.State.ANR), d.State.ANR)
	}
	focus := func() {
		c.Printf("  mCurrentFocus=%s\n", win)
		if modern {
			c.Printf("  mFocusedApp=%s\n", rec)
		} else {
			c.Printf("  mFocusedApp=AppWindowToken{%s token=Token{%s %s}}\n", model.ObjID("awt", rec), model.ObjID("tok", rec), rec)
		}
	}
	if all || sect == "policy" || sect == "p" {
		c.Printf("WINDOW MANAGER POLICY STATE (dumpsys window policy)\n")
		c.Printf("    mSafeMode=false mSystemReady=true mSystemBooted=true\n")
		if !modern {
			c.Printf("    mLidState=-1 mLidOpenRotation=-1 mCameraLensCoverState=-1 mHdmiPlugged=false\n")
			c.Printf("    mScreenOnEarly=%t mScreenOnFully=%t\n", on, on)
			c.Printf("    mOrientationSensorEnabled=false\n")
			c.Printf("    mStatusBar=Window{%s u0 StatusBar} isStatusBarKeyguard=%t\n", model.ObjID("StatusBar"), locked)
			c.Printf("    mShowingLockscreen=%t mShowingDream=false mDreamingLockscreen=false mDreamingSleepToken=null\n", locked)
		} else {
			c.Printf("    mCameraLensCoverState=CAMERA_LENS_COVER_ABSENT\n")
			c.Printf("    mWakeGestureEnabledSetting=true\n")
			c.Printf("    mShortPressOnPowerBehavior=SHORT_PRESS_POWER_GO_TO_SLEEP\n")
			c.Printf("    mShowingDream=false mDreamingLockscreen=%t mDreamingSleepToken=null\n", locked && !on)
			c.Printf("    mKeyguardDelegate=\n    KeyguardServiceDelegate\n      showing=%t\n      showingAndNotOccluded=true\n      inputRestricted=%t\n      occluded=false\n      secure=false\n      dreaming=false\n      systemIsReady=true\n      deviceHasKeyguard=true\n      enabled=true\n      offReason=OFF_BECAUSE_OF_USER\n      currentUser=0\n      bootCompleted=true\n      screenState=%s\n      interactiveState=%s\n",
				locked, locked,
				map[bool]string{true: "SCREEN_STATE_ON", false: "SCREEN_STATE_OFF"}[on],
				map[bool]string{true: "INTERACTIVE_STATE_AWAKE", false: "INTERACTIVE_STATE_SLEEP"}[on])
			c.Printf("      KeyguardStateMonitor\n        mIsShowing=%t\n        mSimSecure=false\n        mInputRestricted=%t\n        mTrusted=false\n        mCurrentUserId=0\n", locked, locked)
		}
		c.Printf("\n")
	}
	if all || sect == "displays" || sect == "d" {
		ds := d.DisplaySize()
		c.Printf("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n")
		c.Printf("  Display: mDisplayId=0 rootTasks=%d\n", len(d.State.Tasks))
		c.Printf("    init=%dx%d %ddpi cur=%dx%d app=%dx%d rng=%dx%d-%dx%d\n", d.Screen.Width, d.Screen.Height, d.Screen.Density,
			ds.X, ds.Y, ds.X, ds.Y, min(ds.X, ds.Y), min(ds.X, ds.Y), max(ds.X, ds.Y), max(ds.X, ds.Y))
		if modern {
			c.Printf("    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,%d,%d))\n\n", ds.X, ds.Y)
			focus()
			c.Printf("\n    DisplayRotation\n      mCurrentAppOrientation=SCREEN_ORIENTATION_UNSPECIFIED\n      mLastOrientation=-1\n")
			c.Printf("      mRotation=%d mDeferredRotationPauseCount=0\n", d.State.Rotation)
			c.Printf("      mLandscapeRotation=ROTATION_90 mSeascapeRotation=ROTATION_270\n      mPortraitRotation=ROTATION_0 mUpsideDownRotation=ROTATION_180\n")
			c.Printf("      mSupportAutoRotation=true\n      mUserRotationMode=USER_ROTATION_LOCKED mUserRotation=ROTATION_%d mAllowAllRotations=false\n", d.State.Rotation*90)
		} else {
			c.Printf("    mRotation=%d mAltOrientation=false\n", d.State.Rotation)
		}
		c.Printf("\n")
	}
	if all || sect == "windows" || sect == "w" {
		c.Printf("WINDOW MANAGER WINDOWS (dumpsys window windows)\n")
		c.Printf("  Window #0 %s:\n    mDisplayId=0 rootTaskId=1 mSession=Session{%s 1234:u0a10123} mClient=android.os.BinderProxy@%s\n", win, model.ObjID("s", pkg), model.ObjID("b", pkg))
		c.Printf("    mHasSurface=%t isReadyForDisplay()=%t mWindowRemovalAllowed=false\n", on, on)
		c.Printf("\n  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw%ddp %s}\n", d.Screen.Width*160/d.Screen.Density, map[bool]string{true: "land", false: "port"}[d.State.Rotation%2 == 1])
		c.Printf("  mHasPermanentDpad=false\n")
		if !modern || !all {
			focus()
		}
	}
}

// dumpActivity: ActivityTaskManager. Android 12+ (SDK >= 31) prints Task{}
// blocks with topResumedActivity= and ResumedActivity:; Android 10-11 print
// stacks with mResumedActivity: and " ResumedActivity:ActivityRecord{...}";
// older ones only mResumedActivity:.
func dumpActivity(d *model.Phone, c *shell.Ctx) {
	rec, _, _, _ := activityRecord(d)
	c.Printf("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n")
	c.Printf("Display #0 (activities from top to bottom):\n")
	for i := len(d.State.Tasks) - 1; i >= 0; i-- {
		t := d.State.Tasks[i]
		top := i == len(d.State.Tasks)-1
		typ := "standard"
		if t.Pkg == d.HomePkg() {
			typ = "home"
		}
		if d.SDK >= 31 {
			c.Printf("  * Task{%s #%d type=%s A=10123:%s U=0 visible=%t visibleRequested=%t mode=fullscreen translucent=false sz=%d}\n",
				model.ObjID("task", t.ID), t.ID, typ, t.Pkg, top, top, len(t.Screens))
			c.Printf("    isSleeping=%t\n", !d.State.ScreenOn)
			if top {
				c.Printf("    topResumedActivity=%s\n", rec)
			}
		} else {
			c.Printf("\n  Stack #%d: type=%s mode=fullscreen\n  isSleeping=%t\n    Task id #%d\n    * TaskRecord{%s #%d A=%s U=0 StackId=%d sz=%d}\n",
				t.ID, typ, !d.State.ScreenOn, t.ID, model.ObjID("task", t.ID), t.ID, t.Pkg, t.ID, len(t.Screens))
		}
		for j := len(t.Screens) - 1; j >= 0; j-- {
			s := d.ScreenDef(t.Screens[j])
			act := s.Activity
			if act == "" {
				if a, ok := d.Scenario.AppByPackage(t.Pkg); ok {
					act = a.Activity
				}
			}
			c.Printf("    * Hist  #%d: ActivityRecord{%s u0 %s t%d}\n      packageName=%s processName=%s\n",
				j, model.ObjID("ar", t.ID, ui.FullActivity(t.Pkg, act)), ui.ShortActivity(t.Pkg, act), t.ID, t.Pkg, t.Pkg)
		}
		if d.SDK < 31 && top {
			c.Printf("    mResumedActivity: %s\n", rec)
		}
	}
	c.Printf("\n")
	switch {
	case d.SDK >= 31:
		c.Printf("  Resumed activities in task display areas (from top to bottom):\n    Resumed: %s\n\n  ResumedActivity: %s\n", rec, rec)
	case d.SDK >= 29:
		c.Printf(" ResumedActivity:%s\n", rec)
	}
}

// dumpInput: InputManager. Android 13+ lists viewports
// ("Viewport INTERNAL: ... orientation=N"); older releases print the
// touch mapper's "SurfaceOrientation: N".
func dumpInput(d *model.Phone, c *shell.Ctx) {
	ds := d.DisplaySize()
	c.Printf("INPUT MANAGER (dumpsys input)\n\n")
	if d.SDK >= 33 {
		c.Printf("Input Manager Service (Java) State:\n  Touch Associations:\nInput Reader State (Nums of device: 1):\n  Viewports:\n")
		c.Printf("    Viewport INTERNAL: displayId=0, uniqueId=local:%d, port=0, orientation=%d, logicalFrame=[0, 0, %d, %d], physicalFrame=[0, 0, %d, %d], deviceSize=[%d, %d], isActive=[1]\n",
			physicalDisplayID, d.State.Rotation, ds.X, ds.Y, ds.X, ds.Y, d.Screen.Width, d.Screen.Height)
		return
	}
	c.Printf("Input Reader State:\n  Device 5: virtual_touchscreen\n    Touch Input Mapper (mode - DIRECT):\n")
	c.Printf("      Viewport: displayId=0, orientation=%d, logicalFrame=[0, 0, %d, %d], physicalFrame=[0, 0, %d, %d], deviceSize=[%d, %d]\n",
		d.State.Rotation, ds.X, ds.Y, ds.X, ds.Y, ds.X, ds.Y)
	c.Printf("      SurfaceWidth: %dpx\n      SurfaceHeight: %dpx\n      SurfaceLeft: 0\n      SurfaceTop: 0\n      SurfaceOrientation: %d\n", ds.X, ds.Y, d.State.Rotation)
}

// dumpPower: PowerManagerService.
func dumpPower(d *model.Phone, c *shell.Ctx) {
	wake := "Awake"
	state := "ON"
	if !d.State.ScreenOn {
		wake, state = "Asleep", "OFF"
	}
	c.Printf("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n")
	c.Printf("  mDirty=0x0\n  mWakefulness=%s\n  mWakefulnessChanging=false\n  mIsPowered=%t\n", wake, d.State.Battery.ACPowered || d.State.Battery.USBPowered)
	c.Printf("  mPlugType=%d\n  mBatteryLevel=%d\n  mDockState=0\n  mStayOn=%t\n  mBootCompleted=true\n  mSystemReady=true\n", model.PlugType(d.State.Battery), d.State.Battery.Level, d.StayOnLocked())
	c.Printf("  mWakeLockSummary=0x0\n  mHoldingWakeLockSuspendBlocker=false\n  mHoldingDisplaySuspendBlocker=%t\n", d.State.ScreenOn)
	c.Printf("\nDisplay Power: state=%s\n", state)
}
