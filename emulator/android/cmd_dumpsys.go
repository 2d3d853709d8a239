package android

import (
	"fmt"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// cmdDumpsys prints the services the connector reads. Formats follow
// Android 12-13 (SDK 31-33); where older releases differ, the SDK set in
// Config selects the older lines (noted at each place).
func cmdDumpsys(c *shell.Ctx) int {
	if len(c.Args) < 2 {
		c.Errorf("dumpsys: need a service name (the full dump is not emulated)\n")
		return 1
	}
	d := dev(c)
	d.mu.Lock()
	defer d.mu.Unlock()
	switch c.Args[1] {
	case "battery":
		d.dumpBattery(c)
	case "window":
		d.dumpWindow(c, c.Args[2:])
	case "activity":
		d.dumpActivity(c)
	case "power":
		d.dumpPower(c)
	case "input":
		d.dumpInput(c)
	case "display":
		d.dumpDisplay(c)
	case "SurfaceFlinger":
		d.dumpSurfaceFlinger(c, c.Args[2:])
	case "input_method":
		d.dumpInputMethod(c)
	case "notification":
		d.dumpNotification(c, c.Args[2:])
	case "package":
		d.dumpPackage(c, c.Args[2:])
	default:
		// frameworks/native/cmds/dumpsys/dumpsys.cpp: "Can't find
		// service: NAME" on stderr, and the status stays 0.
		c.Errorf("Can't find service: %s\n", c.Args[1])
	}
	return 0
}

// dumpBattery: BatteryService. "Dock powered" appears from Android 13.
func (d *Device) dumpBattery(c *shell.Ctx) {
	b := d.st.battery
	status := 3 // BATTERY_STATUS_DISCHARGING
	if b.ACPowered || b.USBPowered {
		status = 2 // CHARGING
		if b.Level >= 100 {
			status = 5 // FULL
		}
	}
	c.Printf("Current Battery Service state:\n")
	c.Printf("  AC powered: %t\n  USB powered: %t\n  Wireless powered: false\n", b.ACPowered, b.USBPowered)
	if d.cfg.SDK >= 33 {
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
func (d *Device) activityRecord() (rec string, pkg, act string, taskID int) {
	t := d.top()
	pkg, act = d.foreground()
	return fmt.Sprintf("ActivityRecord{%s u0 %s t%d}", objID("ar", t.id, act), ui.ShortActivity(pkg, act), t.id), pkg, act, t.id
}

// dumpWindow: WindowManagerService. Sections "policy", "displays",
// "windows" (also "p", "d", "w"); no argument prints all. Android 10+
// (SDK >= 29) prints the KeyguardServiceDelegate block (showing=,
// screenState=), focus lines under the display and a DisplayRotation block
// ("mRotation=N mDeferredRotationPauseCount=0"); older releases print
// mShowingLockscreen=, isStatusBarKeyguard=, mScreenOnFully= and
// "mRotation=N mAltOrientation=false", focus under the window list, and
// mFocusedApp as an AppWindowToken.
func (d *Device) dumpWindow(c *shell.Ctx, args []string) {
	sect := ""
	if len(args) > 0 {
		sect = args[0]
	}
	all := sect == "" || sect == "-a"
	modern := d.cfg.SDK >= 29
	rec, pkg, act, _ := d.activityRecord()
	on, locked := d.st.screenOn, d.st.locked
	win := fmt.Sprintf("Window{%s u0 %s/%s}", objID("w", pkg, act), pkg, act)
	if locked {
		name := "NotificationShade" // Android 11+ SystemUI window title
		if d.cfg.SDK < 30 {
			name = "StatusBar"
		}
		win = fmt.Sprintf("Window{%s u0 %s}", objID(name), name)
	}
	if d.st.anr != "" && !locked {
		// The ANR dialog's window title (AppNotRespondingDialog).
		win = fmt.Sprintf("Window{%s u0 Application Not Responding: %s}", objID("anr", d.st.anr), d.st.anr)
	}
	focus := func() {
		c.Printf("  mCurrentFocus=%s\n", win)
		if modern {
			c.Printf("  mFocusedApp=%s\n", rec)
		} else {
			c.Printf("  mFocusedApp=AppWindowToken{%s token=Token{%s %s}}\n", objID("awt", rec), objID("tok", rec), rec)
		}
	}
	if all || sect == "policy" || sect == "p" {
		c.Printf("WINDOW MANAGER POLICY STATE (dumpsys window policy)\n")
		c.Printf("    mSafeMode=false mSystemReady=true mSystemBooted=true\n")
		if !modern {
			c.Printf("    mLidState=-1 mLidOpenRotation=-1 mCameraLensCoverState=-1 mHdmiPlugged=false\n")
			c.Printf("    mScreenOnEarly=%t mScreenOnFully=%t\n", on, on)
			c.Printf("    mOrientationSensorEnabled=false\n")
			c.Printf("    mStatusBar=Window{%s u0 StatusBar} isStatusBarKeyguard=%t\n", objID("StatusBar"), locked)
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
		ds := d.displaySize()
		c.Printf("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n")
		c.Printf("  Display: mDisplayId=0 rootTasks=%d\n", len(d.st.tasks))
		c.Printf("    init=%dx%d %ddpi cur=%dx%d app=%dx%d rng=%dx%d-%dx%d\n", d.screen.Width, d.screen.Height, d.screen.Density,
			ds.X, ds.Y, ds.X, ds.Y, min(ds.X, ds.Y), min(ds.X, ds.Y), max(ds.X, ds.Y), max(ds.X, ds.Y))
		if modern {
			c.Printf("    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,%d,%d))\n\n", ds.X, ds.Y)
			focus()
			c.Printf("\n    DisplayRotation\n      mCurrentAppOrientation=SCREEN_ORIENTATION_UNSPECIFIED\n      mLastOrientation=-1\n")
			c.Printf("      mRotation=%d mDeferredRotationPauseCount=0\n", d.st.rotation)
			c.Printf("      mLandscapeRotation=ROTATION_90 mSeascapeRotation=ROTATION_270\n      mPortraitRotation=ROTATION_0 mUpsideDownRotation=ROTATION_180\n")
			c.Printf("      mSupportAutoRotation=true\n      mUserRotationMode=USER_ROTATION_LOCKED mUserRotation=ROTATION_%d mAllowAllRotations=false\n", d.st.rotation*90)
		} else {
			c.Printf("    mRotation=%d mAltOrientation=false\n", d.st.rotation)
		}
		c.Printf("\n")
	}
	if all || sect == "windows" || sect == "w" {
		c.Printf("WINDOW MANAGER WINDOWS (dumpsys window windows)\n")
		c.Printf("  Window #0 %s:\n    mDisplayId=0 rootTaskId=1 mSession=Session{%s 1234:u0a10123} mClient=android.os.BinderProxy@%s\n", win, objID("s", pkg), objID("b", pkg))
		c.Printf("    mHasSurface=%t isReadyForDisplay()=%t mWindowRemovalAllowed=false\n", on, on)
		c.Printf("\n  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw%ddp %s}\n", d.screen.Width*160/d.screen.Density, map[bool]string{true: "land", false: "port"}[d.st.rotation%2 == 1])
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
func (d *Device) dumpActivity(c *shell.Ctx) {
	rec, _, _, _ := d.activityRecord()
	c.Printf("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n")
	c.Printf("Display #0 (activities from top to bottom):\n")
	for i := len(d.st.tasks) - 1; i >= 0; i-- {
		t := d.st.tasks[i]
		top := i == len(d.st.tasks)-1
		typ := "standard"
		if t.pkg == d.homePkg() {
			typ = "home"
		}
		if d.cfg.SDK >= 31 {
			c.Printf("  * Task{%s #%d type=%s A=10123:%s U=0 visible=%t visibleRequested=%t mode=fullscreen translucent=false sz=%d}\n",
				objID("task", t.id), t.id, typ, t.pkg, top, top, len(t.screens))
			c.Printf("    isSleeping=%t\n", !d.st.screenOn)
			if top {
				c.Printf("    topResumedActivity=%s\n", rec)
			}
		} else {
			c.Printf("\n  Stack #%d: type=%s mode=fullscreen\n  isSleeping=%t\n    Task id #%d\n    * TaskRecord{%s #%d A=%s U=0 StackId=%d sz=%d}\n",
				t.id, typ, !d.st.screenOn, t.id, objID("task", t.id), t.id, t.pkg, t.id, len(t.screens))
		}
		for j := len(t.screens) - 1; j >= 0; j-- {
			s := d.screenDef(t.screens[j])
			act := s.Activity
			if act == "" {
				if a, ok := d.sc.AppByPackage(t.pkg); ok {
					act = a.Activity
				}
			}
			c.Printf("    * Hist  #%d: ActivityRecord{%s u0 %s t%d}\n      packageName=%s processName=%s\n",
				j, objID("ar", t.id, ui.FullActivity(t.pkg, act)), ui.ShortActivity(t.pkg, act), t.id, t.pkg, t.pkg)
		}
		if d.cfg.SDK < 31 && top {
			c.Printf("    mResumedActivity: %s\n", rec)
		}
	}
	c.Printf("\n")
	switch {
	case d.cfg.SDK >= 31:
		c.Printf("  Resumed activities in task display areas (from top to bottom):\n    Resumed: %s\n\n  ResumedActivity: %s\n", rec, rec)
	case d.cfg.SDK >= 29:
		c.Printf(" ResumedActivity:%s\n", rec)
	}
}

// dumpInput: InputManager. Android 13+ lists viewports
// ("Viewport INTERNAL: ... orientation=N"); older releases print the
// touch mapper's "SurfaceOrientation: N".
func (d *Device) dumpInput(c *shell.Ctx) {
	ds := d.displaySize()
	c.Printf("INPUT MANAGER (dumpsys input)\n\n")
	if d.cfg.SDK >= 33 {
		c.Printf("Input Manager Service (Java) State:\n  Touch Associations:\nInput Reader State (Nums of device: 1):\n  Viewports:\n")
		c.Printf("    Viewport INTERNAL: displayId=0, uniqueId=local:%d, port=0, orientation=%d, logicalFrame=[0, 0, %d, %d], physicalFrame=[0, 0, %d, %d], deviceSize=[%d, %d], isActive=[1]\n",
			physicalDisplayID, d.st.rotation, ds.X, ds.Y, ds.X, ds.Y, d.screen.Width, d.screen.Height)
		return
	}
	c.Printf("Input Reader State:\n  Device 5: virtual_touchscreen\n    Touch Input Mapper (mode - DIRECT):\n")
	c.Printf("      Viewport: displayId=0, orientation=%d, logicalFrame=[0, 0, %d, %d], physicalFrame=[0, 0, %d, %d], deviceSize=[%d, %d]\n",
		d.st.rotation, ds.X, ds.Y, ds.X, ds.Y, ds.X, ds.Y)
	c.Printf("      SurfaceWidth: %dpx\n      SurfaceHeight: %dpx\n      SurfaceLeft: 0\n      SurfaceTop: 0\n      SurfaceOrientation: %d\n", ds.X, ds.Y, d.st.rotation)
}

// dumpPower: PowerManagerService.
func (d *Device) dumpPower(c *shell.Ctx) {
	wake := "Awake"
	state := "ON"
	if !d.st.screenOn {
		wake, state = "Asleep", "OFF"
	}
	c.Printf("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n")
	c.Printf("  mDirty=0x0\n  mWakefulness=%s\n  mWakefulnessChanging=false\n  mIsPowered=%t\n", wake, d.st.battery.ACPowered || d.st.battery.USBPowered)
	c.Printf("  mPlugType=%d\n  mBatteryLevel=%d\n  mDockState=0\n  mStayOn=%t\n  mBootCompleted=true\n  mSystemReady=true\n", plugType(d.st.battery), d.st.battery.Level, d.stayOnLocked())
	c.Printf("  mWakeLockSummary=0x0\n  mHoldingWakeLockSuspendBlocker=false\n  mHoldingDisplaySuspendBlocker=%t\n", d.st.screenOn)
	c.Printf("\nDisplay Power: state=%s\n", state)
}

func plugType(b ui.BatterySpec) int {
	switch {
	case b.ACPowered:
		return 1
	case b.USBPowered:
		return 2
	}
	return 0
}
