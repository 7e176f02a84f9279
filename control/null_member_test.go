package control_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A member whose value is null is a bad request. encoding/json leaves the
// field as it was, so a templating tool that emitted "dry_run": null for a
// preview had the change applied to production (dry_run read as false), and
// "strict": null clamped a value the client meant to have refused. A null
// knob name and a null value were refused already; who and why follow the
// same rule, in a change and in a rollback.
func TestNullMemberIsBadRequest(t *testing.T) {
	for _, body := range []string{
		`{"who":"t","dry_run":null,"changes":[{"knob":"n","value":20}]}`,
		`{"who":"t","strict":null,"changes":[{"knob":"n","value":1000}]}`,
		`{"who":null,"changes":[{"knob":"n","value":20}]}`,
		`{"who":"t","why" : null,"changes":[{"knob":"n","value":20}]}`,
		`{"who":"t","changes":[{"knob":null,"value":20}]}`,
		`{"who":"t","changes":[{"knob":"n","value":null}]}`,
	} {
		_, err := control.DecodeRequest([]byte(body))
		assert.True(t, errors.Is(err, control.ErrBadRequest), "%s: %v", body, err)

		fx := newFixture(t, control.Config{})
		rec := postNull(t, fx.reg, "/", body)
		assert.Equal(t, http.StatusBadRequest, rec.Code, "%s: %s", body, rec.Body)
		assert.Contains(t, rec.Body.String(), `"bad_request"`, body)
		assert.Equal(t, int64(10), fx.n, "%s: the change was applied", body)
		assert.Empty(t, fx.reg.Audit(), body)
	}

	fx := newFixture(t, control.Config{})
	require.Equal(t, http.StatusOK, postNull(t, fx.reg, "/", `{"who":"t","changes":[{"knob":"n","value":20}]}`).Code)
	rec := postNull(t, fx.reg, "/rollback", `{"who":"t","why":null}`)
	assert.Equal(t, http.StatusBadRequest, rec.Code, "%s", rec.Body)
	assert.Equal(t, int64(20), fx.n, "the rollback ran")

	// A string that reads "null" is a value like any other.
	_, err := control.DecodeRequest([]byte(`{"who":"null","why":"n","changes":[{"knob":"n","value":"null"}]}`))
	assert.NoError(t, err)
}

func postNull(t *testing.T, reg *control.Registry, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	hr := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	reg.Handler().ServeHTTP(rec, hr)
	return rec
}
