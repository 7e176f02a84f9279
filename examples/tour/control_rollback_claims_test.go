package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestControlRollbackClaimsAreChecked: the control section printed
// "rollback by oncall: batcher.linger %v -> %v (component now %v)" with
// whatever Rollback returned and the component held, under a title
// promising rollback: a registry that rolled back to the wrong value, or
// whose rollback never reached the component, was printed with exit status
// 0, and one whose Result held no change panicked on res.Changes[0]. Found
// by a review.
func TestControlRollbackClaimsAreChecked(t *testing.T) {
	ms := time.Millisecond
	res := func(old, new time.Duration) control.Result {
		return control.Result{Changes: []control.Outcome{{Knob: "batcher.linger",
			Old: control.Duration(old), New: control.Duration(new)}}}
	}
	require.NoError(t, verify(controlRollbackClaims(res(12*ms, 11*ms), 12*ms, 11*ms, 11*ms)...))

	err := verify(controlRollbackClaims(res(12*ms, 11*ms), 12*ms, 11*ms, 12*ms)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "component now 11ms, not 12ms")
	err = verify(controlRollbackClaims(res(12*ms, 2*ms), 12*ms, 11*ms, 2*ms)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rollback: batcher.linger 12ms -> 11ms, not 12ms -> 2ms")
	require.Error(t, verify(controlRollbackClaims(control.Result{}, 12*ms, 11*ms, 11*ms)...), "no change rolled back")
	assert.Equal(t, 12*ms, controlLinger(19_999), "the timing loop's last change")
}
