package descriptor

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/device/binding"
)

func TestComputeState(t *testing.T) {
	t.Parallel()
	connected := State{StatusConnected, ToolAvailable, PermissionGranted}
	offline := State{StatusOffline, ToolUnavailable, PermissionUnknown}
	degraded := State{StatusDegraded, ToolDeniedByTarget, PermissionDenied}
	created := State{StatusCreated, ToolUnavailable, PermissionUnknown}
	revoked := State{StatusRevoked, ToolUnavailable, PermissionRequiresReauth}
	expired := State{StatusExpired, ToolUnavailable, PermissionRequiresReauth}
	tests := []struct {
		name string
		in   StateInput
		want State
	}{
		{"no binding", StateInput{binding.None, PresenceOnline}, created},
		{"no binding zero value", StateInput{}, created},
		{"no binding offline", StateInput{binding.None, PresenceOffline}, created},
		{"revoked", StateInput{binding.Revoked, PresenceOnline}, revoked},
		{"revoked offline", StateInput{binding.Revoked, PresenceOffline}, revoked},
		{"expired", StateInput{binding.Expired, PresenceOnline}, expired},
		{"expired offline", StateInput{binding.Expired, PresenceOffline}, expired},
		{"bound online", StateInput{binding.Bound, PresenceOnline}, connected},
		{"bound offline", StateInput{binding.Bound, PresenceOffline}, offline},
		{"bound unauthorized", StateInput{binding.Bound, PresenceUnauthorized}, degraded},
		{"bound after restart, not seen", StateInput{binding.Bound, PresenceUnknown}, offline},
		{"bound, presence empty", StateInput{Binding: binding.Bound}, offline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, ComputeState(tt.in)); diff != "" {
				t.Errorf("ComputeState(%+v) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestPresenceFromADBState(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Presence{
		"device": PresenceOnline, "unauthorized": PresenceUnauthorized, "offline": PresenceOffline,
		"authorizing": PresenceOffline, "connecting": PresenceOffline, "recovery": PresenceOffline, "": PresenceUnknown,
	} {
		if got := PresenceFromADBState(in); got != want {
			t.Errorf("PresenceFromADBState(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStateTools(t *testing.T) {
	t.Parallel()
	got := ComputeState(StateInput{binding.Bound, PresenceUnauthorized}).Tools("android_device_status", "android_tap")
	want := []ToolState{
		{"android_device_status", ToolDeniedByTarget, PermissionDenied},
		{"android_tap", ToolDeniedByTarget, PermissionDenied},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tools (-want +got):\n%s", diff)
	}
}
