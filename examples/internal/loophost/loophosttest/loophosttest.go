package loophosttest

import (
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SkipUnlessLocal skips t where ip (127.0.0.2, say) is not a local address,
// as on hosts whose loopback interface holds 127.0.0.1 only.
func SkipUnlessLocal(t testing.TB, ip string) {
	t.Helper()
	probe, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("%s is not a local address here: %v", ip, err)
	}
	_ = probe.Close()
}

// Case is a GET of Path with the Host header Host ("" keeps the URL's) and
// the status the server answers it with.
type Case struct {
	Path, Host string
	Want       int
}

// Check GETs each case's path from base (http://host:port) with its Host and
// checks the status the server answers.
func Check(t testing.TB, base string, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		req, err := http.NewRequest(http.MethodGet, base+tc.Path, nil)
		require.NoError(t, err)
		if tc.Host != "" {
			req.Host = tc.Host
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		assert.Equal(t, tc.Want, resp.StatusCode, "GET %s Host %q: %.200s", tc.Path, tc.Host, body)
	}
}
