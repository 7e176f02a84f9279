package control_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/control"
)

// TestDecodeRequestErrBadRequest: every body DecodeRequest refuses is
// matchable with errors.Is(err, ErrBadRequest), so a caller that receives
// requests another way than HTTP can tell a malformed request (fix it) from
// the errors Apply returns.
func TestDecodeRequestErrBadRequest(t *testing.T) {
	tests := []struct{ name, give string }{
		{"empty", ``},
		{"not json", `{"changes":`},
		{"null", `null`},
		{"array", `[]`},
		{"unknown field", `{"chnages":[]}`},
		{"trailing data", `{"changes":[]} {}`},
		{"duplicate member", `{"who":"a","WHO":"b","changes":[]}`},
		{"object value", `{"changes":[{"knob":"n","value":{}}]}`},
		{"wrong type", `{"changes":"n"}`},
		{"null change", `{"changes":[null]}`},
		{"change without a knob", `{"changes":[{"value":5}]}`},
		{"empty knob name", `{"changes":[{"knob":"n","value":5},{"knob":"","value":1}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := control.DecodeRequest([]byte(tt.give))
			if assert.Error(t, err) {
				assert.True(t, errors.Is(err, control.ErrBadRequest), "%v", err)
				assert.True(t, strings.HasPrefix(err.Error(), "control: bad request: "), "%v", err)
			}
		})
	}
	_, err := control.DecodeRequest([]byte(`{"changes":[{"knob":"n","value":5}]}`))
	assert.NoError(t, err)
}
