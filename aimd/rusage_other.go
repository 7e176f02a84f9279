//go:build !unix

package aimd

import (
	"errors"
	"time"
)

// processCPUTime is not available on this platform.
func processCPUTime() (time.Duration, error) {
	return 0, errors.New("aimd: process CPU time not available on this platform")
}
