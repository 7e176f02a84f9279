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

// An error answer quotes the client's value or name only in part. It echoed
// it whole, and JSON writes each '<' as \u003c: a body of just under 1 MiB
// answered about 6 MiB, and ValueError.Value, documented as cut short, held
// the whole string for an enum or duration knob and the whole number for an
// int knob.
func TestErrorEchoIsBounded(t *testing.T) {
	fx := newFixture(t, control.Config{})
	h := fx.reg.Handler()
	long := strings.Repeat("<", 200_000)
	digits := strings.Repeat("7", 200_000)
	for _, tt := range []struct{ name, body, code string }{
		{"enum", `{"changes":[{"knob":"s","value":"` + long + `"}]}`, "invalid_value"},
		{"duration", `{"changes":[{"knob":"d","value":"` + long + `"}]}`, "invalid_value"},
		{"int", `{"changes":[{"knob":"n","value":` + digits + `}]}`, "invalid_value"},
		{"unknown knob", `{"changes":[{"knob":"` + long + `","value":1}]}`, "unknown_knob"},
		{"unknown field", `{"` + long + `":1}`, "bad_request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Contains(t, rec.Body.String(), `"`+tt.code+`"`)
			assert.Less(t, rec.Body.Len(), 4096, "answer of %d bytes to a body of %d", rec.Body.Len(), len(tt.body))
		})
	}

	for _, v := range []control.Value{control.String(long), control.String(strings.Repeat("é", 100))} {
		for _, knob := range []string{"s", "d"} {
			_, err := fx.reg.Apply(one(knob, v))
			var ve *control.ValueError
			require.True(t, errors.As(err, &ve), "%v", err)
			assert.Less(t, len(ve.Value), 100, "Value cut short")
			assert.True(t, strings.HasSuffix(ve.Value, "..."))
			assert.True(t, strings.ToValidUTF8(ve.Value, "?") == ve.Value, "cut at a character boundary")
		}
	}
}
