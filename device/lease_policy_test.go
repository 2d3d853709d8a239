package device

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/reset"
)

// TestLeaseFromPolicy: the config file's lease, with what it leaves out
// taken from the defaults.
func TestLeaseFromPolicy(t *testing.T) {
	t.Parallel()
	off, on := false, true
	got := leaseFromPolicy(policy.Lease{IdleTimeout: policy.Duration(time.Minute), MaxDuration: policy.Duration(time.Hour),
		Reset: &policy.Reset{Home: &off, ScreenOff: &on, ClearPackages: []string{"com.example.bank"}}})
	want := LeasePolicy{IdleTimeout: time.Minute, MaxDuration: time.Hour, Reset: reset.Policy{
		Home: false, ForceStopLaunched: true, DeleteFiles: true, ScreenOff: true, ClearPackages: []string{"com.example.bank"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lease (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(DefaultLeasePolicy(), leaseFromPolicy(policy.Lease{})); diff != "" {
		t.Errorf("empty lease (-want +got):\n%s", diff)
	}
}
