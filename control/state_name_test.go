package control_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A state name that is not valid UTF-8 is refused, as a knob's is: JSON
// replaces its bytes with U+FFFD, so GET /state answered a name that was
// never registered, and two such states answered one name twice in one
// object, of which a client kept one.
func TestRegisterStateNameNotUTF8(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	require.NoError(t, reg.RegisterState("ok", func() any { return 0 }))
	assert.Error(t, reg.RegisterState("a\xff", func() any { return 1 }))
	assert.Error(t, reg.RegisterState("a\xfe", func() any { return 2 }))

	w := httptest.NewRecorder()
	reg.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/state", nil))
	require.Equal(t, http.StatusOK, w.Code)
	var got map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &got))
	assert.Len(t, got, reg.Stats().States, "every state answered under its own name")
}
