package controlplane_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The dashboard's files are served by the same rules as the API: every error
// is {"error": ...} with one of the documented statuses. A Range the file
// does not have or an If-Match (the files carry no ETag) is ignored, and the
// file is served whole, rather than a plain-text 416 or a bodiless 412.
func TestHandlerAssetsNoRangeOrPrecondition(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	h := p.Handler()
	for _, path := range []string{"/", "/dashboard.js"} {
		for _, hdr := range [][2]string{
			{"Range", "bytes=100000000-"},
			{"Range", "bytes=0-9"},
			{"If-Match", `"x"`},
			{"If-Unmodified-Since", "Mon, 02 Jan 2006 15:04:05 GMT"},
		} {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set(hdr[0], hdr[1])
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 400 {
				var body map[string]string
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), "%s %s: %d %q", path, hdr, rec.Code, rec.Body.String())
				continue
			}
			assert.Equal(t, 200, rec.Code, "%s %s", path, hdr)
			assert.Greater(t, rec.Body.Len(), 100, "%s %s: the whole file", path, hdr)
		}
	}
}
