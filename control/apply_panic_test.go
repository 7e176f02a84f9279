package control_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A component's Apply func that panics (a SetConfig without the check for a
// value the knob's bounds allow) fails its batch like one that returns an
// error: the knobs applied before it get their old values back, the change
// budget is refunded, and the panic goes on to the caller. net/http recovers
// a handler's panic and the process runs on, so a batch left half applied
// stayed that way: the component held the new value while the registry
// reported the old one, and sending the old value was taken as a no-op.
func TestApplyPanicUndoesBatch(t *testing.T) {
	reg, err := control.New(control.Config{Rate: 1})
	require.NoError(t, err)
	a, b := int64(1), int64(1)
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "a", Value: a,
		Apply: func(v int64) error { a = v; return nil }}))
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "b", Value: b, Apply: func(v int64) error {
		if v == 0 {
			panic("division by zero")
		}
		b = v
		return nil
	}}))

	h := reg.Handler()
	body := `{"who":"t","changes":[{"knob":"a","value":2},{"knob":"b","value":0}]}`
	hr := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	require.PanicsWithValue(t, "division by zero", func() { h.ServeHTTP(httptest.NewRecorder(), hr) })

	assert.Equal(t, int64(1), a, "the knob applied before the panic got its old value back")
	got, err := reg.Get("a")
	require.NoError(t, err)
	assert.Equal(t, control.Int(a), got, "registry and component agree")
	assert.Empty(t, reg.Audit())
	assert.Equal(t, uint64(1), reg.Stats().ApplyFailed)

	// The panicking knob's component may hold anything: its next change is
	// applied even to the value the registry reports.
	res, err := reg.Apply(control.Request{Who: "operator", Why: "repair", Changes: []control.Change{
		{Knob: "b", Value: control.Int(1)}}})
	require.NoError(t, err, "the panicked batch spent no change budget")
	assert.NotZero(t, res.Batch)
}
