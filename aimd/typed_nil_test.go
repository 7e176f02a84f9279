package aimd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/aimd"
)

// TestTypedNilSignalRefused: a nil pointer of one of the package's own
// signal types is not a nil Signal (the default); its Sample locks the nil
// receiver's mutex. New took it, and every control step panicked, in the
// goroutine of the admission that ran it; only a nil SignalFunc and a nil
// *MaxOf were refused. Each is refused as Config.Signal and as a MaxOf's
// component.
func TestTypedNilSignalRefused(t *testing.T) {
	for _, tt := range []struct {
		give aimd.Signal
		want string
	}{
		{(*aimd.ProcessCPU)(nil), "aimd: Signal is a nil *ProcessCPU: invalid config"},
		{(*aimd.CgroupCPU)(nil), "aimd: Signal is a nil *CgroupCPU: invalid config"},
		{(*aimd.Latency)(nil), "aimd: Signal is a nil *Latency: invalid config"},
		{(*aimd.SchedLatency)(nil), "aimd: Signal is a nil *SchedLatency: invalid config"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			requireSignalRefused(t, tt.give)
			_, err := aimd.New(aimd.Config{Signal: tt.give, Manual: true, MemoryLimit: -1})
			assert.EqualError(t, err, tt.want)
			requireSignalRefused(t, aimd.MaxOf{{Signal: tt.give, Target: 1}})
		})
	}
}
