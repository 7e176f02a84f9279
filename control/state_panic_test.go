package control_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// syncBuffer is a bytes.Buffer for a server's error log, written by its
// connection goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestStatePanicAnswers500: a state func that panics (a component's Stats
// with a nil dereference) makes GET / and GET /state answer 500 with the
// package's JSON error body, counted in Stats.StatePanics, and the panic
// goes on to the server, which logs it, as a panicking Apply func's does.
// net/http recovered the handler's panic and dropped the connection: the
// client got no status and no body, only a transport error.
func TestStatePanicAnswers500(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	require.NoError(t, reg.RegisterState("ok", func() any { return 1 }))
	require.NoError(t, reg.RegisterState("bad", func() any { panic("stats: nil limiter") }))

	srv := httptest.NewUnstartedServer(reg.Handler())
	logs := &syncBuffer{}
	srv.Config.ErrorLog = log.New(logs, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)

	for i, path := range []string{"/", "/state"} {
		resp, err := srv.Client().Get(srv.URL + path)
		require.NoError(t, err, path)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err, path)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, path)
		var e struct{ Error, Code string }
		require.NoError(t, json.Unmarshal(body, &e), "%s: %s", path, body)
		assert.Equal(t, "state_failed", e.Code, path)
		assert.Equal(t, `control: state "bad" panicked: stats: nil limiter`, e.Error, path)
		assert.Equal(t, uint64(i+1), reg.Stats().StatePanics, path)
	}
	srv.Close() // waits for the connections' goroutines, which log the panic
	assert.Contains(t, logs.String(), "stats: nil limiter")

	// Without a server, the panic reaches the caller of ServeHTTP after the answer.
	rec := httptest.NewRecorder()
	require.PanicsWithValue(t, "stats: nil limiter", func() {
		reg.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/state", nil))
	})
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Contains(t, rec.Body.String(), `"code": "state_failed"`)
	require.Panics(t, func() { reg.State() }, "the Go API lets the panic through")
}
