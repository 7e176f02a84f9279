package control_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/control"
)

// TestChangeWithoutValueIsBadRequest: a change that names a knob but sends no
// value is a malformed request, as one without a knob name is and one whose
// value is null. DecodeRequest took it, and Apply answered it as a value of
// the wrong kind: "an int knob does not take an invalid", quoting "<invalid>".
func TestChangeWithoutValueIsBadRequest(t *testing.T) {
	for _, body := range []string{
		`{"who":"t","changes":[{"knob":"n"}]}`,
		`{"who":"t","dry_run":true,"changes":[{"knob":"n","value":20},{"knob":"s"}]}`,
	} {
		_, err := control.DecodeRequest([]byte(body))
		assert.True(t, errors.Is(err, control.ErrBadRequest), "%s: %v", body, err)
		assert.ErrorContains(t, err, "no value", body)

		fx := newFixture(t, control.Config{})
		rec := postNull(t, fx.reg, "/", body)
		assert.Equal(t, http.StatusBadRequest, rec.Code, "%s: %s", body, rec.Body)
		assert.Contains(t, rec.Body.String(), `"bad_request"`, body)
		assert.NotContains(t, rec.Body.String(), "invalid", body)
		assert.Equal(t, int64(10), fx.n, body)
	}
}
