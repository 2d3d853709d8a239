package parse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Table tests for shapes real devices print that the early parsers got
// wrong; each has a golden input of the same shape under testdata/ whose
// source testdata/SOURCES.md names.

// TestLogcatTagWithColon: tags may contain ':' (Samsung's "SGM:GameManager",
// a truncated process name "earchbox:search"); liblog's logprint.cpp ends
// the tag with ": " in threadtime ("%-8s: ") and with "(pid): " in brief.
func TestLogcatTagWithColon(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, tag, msg string
	}{
		{"threadtime", "10-04 16:55:33.260  1427  1427 D SGM:GameManager: onDisplayChanged. displyId: 0, state: 2",
			"SGM:GameManager", "onDisplayChanged. displyId: 0, state: 2"},
		{"threadtime message with colons", "10-04 16:55:33.366  1044  1044 E SecVibrator-HAL-AIDL-EXT: V_3_0: performHapticEngine",
			"SecVibrator-HAL-AIDL-EXT", "V_3_0: performHapticEngine"},
		{"threadtime padded tag", "10-04 16:55:33.360   975  1036 I display : Set Affinity CPU ID : 0",
			"display", "Set Affinity CPU ID : 0"},
		{"threadtime colon tag, empty message", "10-04 16:55:33.260  1427  1427 D SGM:GameManager: ", "SGM:GameManager", ""},
		{"threadtime colon tag, trailing space trimmed", "10-04 16:55:33.260  1427  1427 D SGM:GameManager:", "SGM:GameManager", ""},
		{"threadtime,year uid", "2024-10-04 16:55:33.260  1000  1427  1427 D SGM:GameManager: x", "SGM:GameManager", "x"},
		{"brief", "D/SGM:GameManager( 1427): onDisplayChanged. displyId: 0", "SGM:GameManager", "onDisplayChanged. displyId: 0"},
		{"brief padded", "I/display (  975): Set Affinity CPU ID : 0", "display", "Set Affinity CPU ID : 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Logcat(tt.in)
			if err != nil || len(got) != 1 {
				t.Fatalf("Logcat(%q) = %v, %v", tt.in, got, err)
			}
			if diff := cmp.Diff([2]string{tt.tag, tt.msg}, [2]string{got[0].Tag, got[0].Message}); diff != "" {
				t.Errorf("tag, message (-want +got):\n%s", diff)
			}
		})
	}
}
