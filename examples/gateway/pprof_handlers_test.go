package main

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPprofIndexLinksServed: every page /debug/pprof/ links to is served,
// and so is /debug/pprof/symbol, which go tool pprof asks for when it
// symbolizes a remote profile: /debug/pprof/cmdline and /debug/pprof/symbol
// answered 404 "Unknown profile", the index taking them for runtime
// profiles. Each keeps the Host guard of the others.
func TestPprofIndexLinksServed(t *testing.T) {
	in := startGateway(t, Config{})
	base := "http://" + in.httpLn.Addr().String()
	get := func(path, host string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, index := get("/debug/pprof/", "")
	require.Equal(t, http.StatusOK, code)
	for _, name := range []string{"cmdline", "symbol"} {
		if name != "symbol" {
			assert.Contains(t, index, "href='"+name, "the index links to %s", name)
		}
		code, body := get("/debug/pprof/"+name, "")
		assert.Equal(t, http.StatusOK, code, "%s: %s", name, body)
		if name == "cmdline" {
			assert.True(t, strings.HasPrefix(body, os.Args[0]), "cmdline: %q", body)
		} else {
			assert.Contains(t, body, "num_symbols", "symbol")
		}
		code, _ = get("/debug/pprof/"+name, "rebind.example:6381")
		assert.Equal(t, http.StatusForbidden, code, "%s with a foreign Host", name)
	}
}
