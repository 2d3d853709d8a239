package benchtb

import (
	"os"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

// StrayADB waits up to 5 s for adb processes on port to go, then kills
// and returns those left: a bench run must leave none behind.
func StrayADB(port int) []int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := adbserver.Processes(port)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			}
			return pids
		}
		time.Sleep(100 * time.Millisecond) // polling /proc: the processes are not ours to wait for
	}
}
