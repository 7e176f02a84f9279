package control_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// panicky is a snapshot whose MarshalJSON panics.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("snapshot: nil histogram") }

// TestStateEncodePanicNamesState: a snapshot that panics while the handler
// encodes it answers state_failed naming its state, as a state func's panic
// does; the answer named the state "".
func TestStateEncodePanicNamesState(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	require.NoError(t, reg.RegisterState("ok", func() any { return 1 }))
	require.NoError(t, reg.RegisterState("hist", func() any { return panicky{} }))
	for _, path := range []string{"/", "/state"} {
		rec := httptest.NewRecorder()
		require.PanicsWithValue(t, "snapshot: nil histogram", func() {
			reg.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		}, path)
		assert.Equal(t, http.StatusInternalServerError, rec.Code, path)
		assert.Contains(t, rec.Body.String(), `"code": "state_failed"`, path)
		assert.Contains(t, rec.Body.String(), `control: state \"hist\" panicked: snapshot: nil histogram`, path)
	}
	assert.Equal(t, uint64(2), reg.Stats().StatePanics)
}
