package services

import (
	"fmt"
	"image"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// physicalDisplayID is SurfaceFlinger's id of the built-in panel, derived
// from its EDID (port 0, pnpId GGL): the value a Pixel on Android 14 prints
// as `Display 4619827677550801152 (HWC display 0): port=0 pnpId=GGL
// displayName="Common Panel"` in a public SurfaceFlinger dump walkthrough.
// DisplayManager calls the display "local:<id>".
const (
	physicalDisplayID = 4619827677550801152
	panelName         = "Common Panel"
)

// dumpSurfaceFlinger: `dumpsys SurfaceFlinger --display-id` runs
// SurfaceFlinger::dumpDisplayIdentificationData only (frameworks/native/
// services/surfaceflinger/SurfaceFlinger.cpp): one line per physical
// display, "Display <id> (HWC display <n>): port=<p> pnpId=<id>
// displayName="<name>"". Without a known flag SurfaceFlinger dumps
// everything; the model prints the head of that dump, which holds the same
// line under "Display identification data:". The model is locked.
func dumpSurfaceFlinger(d *model.Phone, c *shell.Ctx, args []string) {
	ident := fmt.Sprintf("Display %d (HWC display 0): port=0 pnpId=GGL displayName=\"%s\"\n", uint64(physicalDisplayID), panelName)
	if len(args) > 0 && args[0] == "--display-id" {
		c.Printf("%s", ident)
		return
	}
	c.Printf("Build configuration: [sf PRESENT_TIME_OFFSET=0 FORCE_HWC_FOR_RBG_TO_YUV=0 MAX_VIRT_DISPLAY_DIM=0 RUNNING_WITHOUT_SYNC_FRAMEWORK=0 NUM_FRAMEBUFFER_SURFACE_BUFFERS=3]\n")
	c.Printf("\nDisplay identification data:\n%s\n", ident)
	c.Printf("Wide-Color information:\nDevice supports wide color: 1\nDisplayColorSetting: Natural\n")
	c.Printf("Display %d color modes:\n    ColorMode::NATIVE (0)\n    ColorMode::SRGB (7)\n    ColorMode::DISPLAY_P3 (9)\n    Current color mode: ColorMode::SRGB (7)\n\n", uint64(physicalDisplayID))
}

// displayInfo is DisplayInfo.toString (frameworks/base/core/java/android/
// view/DisplayInfo.java, Android 13) as system_server prints it, with the
// stray quote after the display id that the real method has. The base
// info is the panel as mounted (rotation 0); the override one is what apps
// see (rotation and wm size applied).
func displayInfo(d *model.Phone, base bool) string {
	ds, rot := d.DisplaySize(), d.State.Rotation
	if base {
		ds, rot = image.Pt(d.Screen.Width, d.Screen.Height), 0
	}
	short, long := min(ds.X, ds.Y), max(ds.X, ds.Y)
	return fmt.Sprintf("DisplayInfo{\"Built-in Screen\", displayId 0\", displayGroupId 0, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED, "+
		"real %d x %d, largest app %d x %d, smallest app %d x %d, appVsyncOff 1000000, presDeadline 16666666, mode 1, defaultMode 1, "+
		"modes [{id=1, width=%d, height=%d, fps=60.0, alternativeRefreshRates=[]}], "+
		"hdrCapabilities HdrCapabilities{mSupportedHdrTypes=[2, 3, 4], mMaxLuminance=500.0, mMaxAverageLuminance=500.0, mMinLuminance=0.0}, "+
		"userDisabledHdrTypes [], minimalPostProcessingSupported false, rotation %d, state %s, type INTERNAL, uniqueId \"local:%d\", "+
		"app %d x %d, density %d (%d.0 x %d.0) dpi, layerStack 0, colorMode 0, supportedColorModes [0, 7, 9], "+
		"address {port=0, model=0x%x}, deviceProductInfo DeviceProductInfo{name=%s, manufacturerPnpId=GGL, productId=0, modelYear=null, manufactureDate=ManufactureDate{week=27, year=2006}, connectionToSinkType=0}, "+
		"removeMode 0, refreshRateOverride 0.0, brightnessMinimum 0.0, brightnessMaximum 1.0, brightnessDefault 0.4, installOrientation ROTATION_0}",
		ds.X, ds.Y, long, long, short, short, d.Screen.Width, d.Screen.Height, rot, displayState(d.State.ScreenOn),
		uint64(physicalDisplayID), ds.X, ds.Y, density(d), d.Screen.Density, d.Screen.Density, uint64(physicalDisplayID)>>8, panelName)
}

func displayState(on bool) string {
	if on {
		return "ON"
	}
	return "OFF"
}

// density is the logical density: the wm density override or the panel's.
func density(d *model.Phone) int {
	if d.State.WmDens > 0 {
		return d.State.WmDens
	}
	return d.Screen.Density
}

// dumpDisplay is DisplayManagerService.dumpInternal with its real
// "mOnlyCode=" typo, the viewport list, the display device
// (DisplayDeviceInfo.toString) and the logical display
// (LogicalDisplay.dumpLocked: mBaseDisplayInfo, mOverrideDisplayInfo),
// ending before the mode director, callbacks and power controller blocks
// no tool reads. The model is locked.
func dumpDisplay(d *model.Phone, c *shell.Ctx) {
	ds := d.DisplaySize()
	w, h := d.Screen.Width, d.Screen.Height
	id := uint64(physicalDisplayID)
	c.Printf("DISPLAY MANAGER (dumpsys display)\n  mOnlyCode=false\n  mSafeMode=false\n  mPendingTraversal=false\n")
	c.Printf("  mGlobalDisplayState=%s\n  mNextNonDefaultDisplayId=2\n", displayState(d.State.ScreenOn))
	c.Printf("  mViewports=[DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:%d', physicalPort=0, orientation=%d, logicalFrame=Rect(0, 0 - %d, %d), physicalFrame=Rect(0, 0 - %d, %d), deviceWidth=%d, deviceHeight=%d}]\n",
		id, d.State.Rotation, ds.X, ds.Y, ds.X, ds.Y, ds.X, ds.Y)
	c.Printf("  mDefaultDisplayDefaultColorMode=0\n  mSingleDisplayDemoMode=false\n  mWifiDisplayScanRequestCount=0\n  mStableDisplaySize=Point(%d, %d)\n", w, h)
	c.Printf("  mMinimumBrightnessCurve=MonotoneCubicSpline{[(0.0, 0.0: 0.025), (2000.0, 50.0: 0.025)]}\n")
	c.Printf("\nDisplay Adapters: size=2\n  LocalDisplayAdapter\n  VirtualDisplayAdapter\n")
	c.Printf("\nDisplay Devices: size=1\n")
	c.Printf("  DisplayDeviceInfo{\"Built-in Screen\": uniqueId=\"local:%d\", %d x %d, modeId 1, defaultModeId 1, supportedModes [{id=1, width=%d, height=%d, fps=60.0, alternativeRefreshRates=[]}], "+
		"colorMode 0, supportedColorModes [0, 7, 9], hdrCapabilities HdrCapabilities{mSupportedHdrTypes=[2, 3, 4], mMaxLuminance=500.0, mMaxAverageLuminance=500.0, mMinLuminance=0.0}, "+
		"allmSupported false, gameContentTypeSupported false, density %d, %d.0 x %d.0 dpi, appVsyncOff 1000000, presDeadline 16666666, touch INTERNAL, rotation 0, type INTERNAL, "+
		"address {port=0, model=0x%x}, deviceProductInfo DeviceProductInfo{name=%s, manufacturerPnpId=GGL, productId=0, modelYear=null, manufactureDate=ManufactureDate{week=27, year=2006}, connectionToSinkType=0}, "+
		"state %s, frameRateOverride , brightnessMinimum 0.0, brightnessMaximum 1.0, brightnessDefault 0.4, FLAG_ALLOWED_TO_BE_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS, installOrientation 0}\n",
		id, w, h, w, h, d.Screen.Density, d.Screen.Density, d.Screen.Density, id>>8, panelName, displayState(d.State.ScreenOn))
	c.Printf("    mAdapter=LocalDisplayAdapter\n    mUniqueId=local:%d\n    mDisplayToken=android.os.BinderProxy@%s\n    mCurrentLayerStack=0\n    mCurrentOrientation=%d\n",
		id, model.ObjID("displaytoken"), d.State.Rotation)
	c.Printf("\nLogical Displays: size=1\n  Display 0:\n    mDisplayId=0\n    mIsEnabled=true\n    mIsInTransition=false\n    mLayerStack=0\n    mHasContent=true\n")
	c.Printf("    mRequestedColorMode=0\n    mDisplayOffset=(0, 0)\n    mDisplayScalingDisabled=false\n    mPrimaryDisplayDevice=Built-in Screen(local:%d)\n", id)
	c.Printf("    mBaseDisplayInfo=%s\n    mOverrideDisplayInfo=%s\n", displayInfo(d, true), displayInfo(d, false))
	c.Printf("    mRequestedMinimalPostProcessing=false\n    mFrameRateOverrides=[]\n    mPendingFrameRateOverrideUids={}\n")
}
