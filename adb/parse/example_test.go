package parse_test

import (
	"errors"
	"fmt"

	"github.com/adb-connector/adb-connector/adb/parse"
)

func ExampleWMSize() {
	s, err := parse.WMSize("Physical size: 1080x2340\nOverride size: 720x1560\n")
	if err != nil {
		panic(err)
	}
	fmt.Println(*s.Physical, s.Effective(), s.Rotated(1))
	// Output: {1080 2340} {720 1560} {1560 720}
}

func ExampleUIDump() {
	root, err := parse.UIDump([]byte(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
		`<node index="0" text="" class="android.widget.FrameLayout" bounds="[0,0][1080,2340]">` +
		`<node index="0" text="OK" resource-id="android:id/button1" class="android.widget.Button" clickable="true" enabled="true" bounds="[800,2000][1040,2120]"/>` +
		`</node></hierarchy>UI hierchary dumped to: /dev/tty`))
	if err != nil {
		panic(err)
	}
	for _, n := range parse.Flatten(root) {
		fmt.Println(n.Order, n.Class, n.Text, n.Center, n.Clickable)
	}
	// Output:
	// 0 android.widget.FrameLayout  {540 1170} false
	// 1 android.widget.Button OK {920 2060} true
}

func ExampleResolveActivity() {
	c, err := parse.ResolveActivity("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\ncom.android.settings/.Settings\n")
	fmt.Println(c, err)
	_, err = parse.ResolveActivity("No activity found\n")
	fmt.Println(errors.Is(err, parse.ErrNotFound))
	// Output:
	// com.android.settings/.Settings <nil>
	// true
}
