package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHotRequestsWholeScenario: hot-gateway's "no request fails" counted
// only the 3 s window after the hot host's weight was lowered: requests that
// failed before it (while the heat rose and the weight fell, the part of the
// scenario most likely to fail one) or during the restore passed unnoticed.
// Failures count over the whole scenario now; the 1% bound on shed requests
// stays on the evened-out window.
func TestHotRequestsWholeScenario(t *testing.T) {
	window := func(ok, failed, shed uint64) Snapshot {
		return Snapshot{Streams: map[string]Counts{"t00/eu": {OK: ok, Failed: failed, Shed: shed}}}
	}
	for _, tt := range []struct {
		name          string
		whole, evened Snapshot
		ok            bool
	}{
		{"clean", window(2000, 0, 0), window(700, 0, 0), true},
		{"failures before the weight was lowered", window(2000, 3, 0), window(700, 0, 0), false},
		{"a few shed while the heat rose", window(2000, 0, 40), window(700, 0, 7), true},
		{"over 1% shed once lowered", window(2000, 0, 40), window(700, 0, 8), false},
		{"not lowered: failures still count", window(2000, 1, 0), Snapshot{}, false},
		{"not lowered", window(2000, 0, 90), Snapshot{}, true},
	} {
		r := &Report{}
		checkHotRequests(r, tt.whole, tt.evened)
		assert.Equal(t, tt.ok, r.OK(), "%s: %q", tt.name, r.Failures)
	}
}
