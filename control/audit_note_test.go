package control_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// The audit log's memory is bounded, not only its entry count: each entry
// keeps its request's who and why, which a client sized as it liked (up to
// the 1 MiB body over HTTP; without bound in Go), so AuditSize entries held
// AuditSize times that (a GiB at the default 1024). Each is recorded up to
// 1 KiB (Request.Who), cut at a character boundary.
func TestAuditNotesBounded(t *testing.T) {
	const maxNote = 1 << 10
	fx := newFixture(t, control.Config{AuditSize: 4})
	h := fx.reg.Handler()
	long := strings.Repeat("é", 200<<10) // 400 KiB of two-byte characters
	for i := range 4 {
		body := `{"who":"` + long + `","why":"x` + long + `","changes":[{"knob":"n","value":` + strconv.Itoa(20+i) + `}]}`
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	}
	_, err := fx.reg.Rollback(long, long)
	require.NoError(t, err)
	held := 0
	for _, e := range fx.reg.Audit() {
		held += len(e.Who) + len(e.Why)
		assert.LessOrEqual(t, len(e.Who), maxNote)
		assert.LessOrEqual(t, len(e.Why), maxNote)
		assert.True(t, utf8.ValidString(e.Who) && utf8.ValidString(e.Why), "cut at a character boundary")
		assert.True(t, strings.HasPrefix(long, strings.TrimPrefix(e.Why, "x")), "the start is kept")
	}
	assert.LessOrEqual(t, held, 2*4*maxNote)
}
