package control_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// An object with two members of one name is refused: encoding/json keeps the
// last (matching names without regard to case), so a request that reads as
// a preview, {"dry_run": true, ..., "dry_run": false}, was applied for real,
// and a change that names two values applied the second without a word.
func TestDecodeRequestDuplicateKeys(t *testing.T) {
	for _, body := range []string{
		`{"dry_run":true,"changes":[{"knob":"n","value":20}],"dry_run":false}`,
		`{"DRY_RUN":true,"dry_run":false,"changes":[{"knob":"n","value":20}]}`,
		`{"dry_run":true,"\u0064ry_run":false,"changes":[{"knob":"n","value":20}]}`,
		`{"changes":[{"knob":"n","value":30,"value":20}]}`,
		`{"changes":[{"knob":"f","value":0.5,"knob":"n"}]}`,
		`{"changes":[{"knob":"f","value":0.5}],"changes":[{"knob":"n","value":20}]}`,
		`{"who":"a","why":"b","Who":"c","changes":[{"knob":"n","value":20}]}`,
	} {
		_, err := control.DecodeRequest([]byte(body))
		require.Error(t, err, body)

		fx := newFixture(t, control.Config{})
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		fx.reg.Handler().ServeHTTP(rec, req)
		data, _ := io.ReadAll(rec.Body)
		assert.Equal(t, http.StatusBadRequest, rec.Code, "%s: %s", body, data)
		assert.Equal(t, int64(10), fx.n, "%s: nothing applied", body)
	}

	// One name in several objects is fine.
	req, err := control.DecodeRequest([]byte(`{"who":"a","changes":[{"knob":"n","value":20},{"knob":"f","value":0.25}]}`))
	require.NoError(t, err)
	assert.Len(t, req.Changes, 2)
}
