package android

import (
	"maps"
	"slices"
	"strconv"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// buildProps returns the device's system properties: defaults derived from
// cfg, then the scenario's, then the explicitly set Config fields, then
// cfg.Properties.
func buildProps(cfg Config, sc *ui.Scenario, screen ui.ScreenSpec, explicit map[string]string) map[string]string {
	p := map[string]string{
		"ro.product.model":                cfg.Model,
		"ro.product.name":                 cfg.Product,
		"ro.product.device":               cfg.Device,
		"ro.product.brand":                "google",
		"ro.product.manufacturer":         cfg.Manufacturer,
		"ro.product.board":                cfg.Device,
		"ro.product.cpu.abi":              "arm64-v8a",
		"ro.product.cpu.abilist":          "arm64-v8a,armeabi-v7a,armeabi",
		"ro.build.version.release":        cfg.Release,
		"ro.build.version.sdk":            strconv.Itoa(cfg.SDK),
		"ro.build.version.security_patch": "2023-10-05",
		"ro.build.version.incremental":    "10754064",
		"ro.build.id":                     "TQ3A.230901.001",
		"ro.build.type":                   "user",
		"ro.build.tags":                   "release-keys",
		"ro.build.characteristics":        "nosdcard",
		"ro.build.fingerprint":            "google/" + cfg.Product + "/" + cfg.Device + ":" + cfg.Release + "/TQ3A.230901.001/10754064:user/release-keys",
		"ro.serialno":                     cfg.Serial,
		"ro.boot.serialno":                cfg.Serial,
		"ro.debuggable":                   "0",
		"ro.secure":                       "1",
		"ro.adb.secure":                   "1",
		"ro.sf.lcd_density":               strconv.Itoa(screen.Density),
		"ro.kernel.qemu":                  "0",
		"sys.boot_completed":              "1",
		"dev.bootcomplete":                "1",
		"init.svc.adbd":                   "running",
		"persist.sys.timezone":            "Etc/UTC",
		"persist.sys.locale":              "en-US",
		"net.hostname":                    "Android",
		"service.adb.root":                "0",
		"gsm.operator.alpha":              "",
	}
	maps.Copy(p, sc.Properties)
	maps.Copy(p, explicit)
	maps.Copy(p, cfg.Properties)
	return p
}

// cmdGetprop: `getprop` lists every property as "[key]: [value]" sorted
// by key; `getprop KEY [DEFAULT]` prints one value (an empty line when
// unset), exit 0 either way — as toolbox getprop does.
func cmdGetprop(c *shell.Ctx) int {
	props := dev(c).p.Props
	if len(c.Args) == 1 {
		for _, k := range slices.Sorted(maps.Keys(props)) {
			c.Printf("[%s]: [%s]\n", k, props[k])
		}
		return 0
	}
	v, ok := props[c.Args[1]]
	if !ok && len(c.Args) > 2 {
		v = c.Args[2]
	}
	c.Printf("%s\n", v)
	return 0
}
