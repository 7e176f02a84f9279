//go:build !unix

package aimd

import "time"

// processCPUTime is not available on this platform.
func processCPUTime() (time.Duration, error) {
	return 0, errNoProcessCPU
}
