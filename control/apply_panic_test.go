package control_test

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A component's Apply func that panics (a SetConfig without the check for a
// value the knob's bounds allow) fails its batch like one that returns an
// error: the knobs applied before it get their old values back, the change
// budget is refunded, and the panic goes on to the caller. net/http recovers
// a handler's panic and the process runs on, so a batch left half applied
// stayed that way: the component held the new value while the registry
// reported the old one, and sending the old value was taken as a no-op.
// Over HTTP the client gets 500 apply_failed naming the knob, as for a
// state func's panic, before the panic goes on: net/http dropped the
// connection of the panicking handler, and the client got no answer.
func TestApplyPanicUndoesBatch(t *testing.T) {
	reg, err := control.New(control.Config{Rate: 1})
	require.NoError(t, err)
	a, b := int64(1), int64(1)
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "a", Value: a,
		Apply: func(v int64) error { a = v; return nil }}))
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "b", Value: b, Apply: func(v int64) error {
		if v == 0 {
			panic("division by zero")
		}
		b = v
		return nil
	}}))

	h := reg.Handler()
	body := `{"who":"t","changes":[{"knob":"a","value":2},{"knob":"b","value":0}]}`
	hr := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	require.PanicsWithValue(t, "division by zero", func() { h.ServeHTTP(rec, hr) },
		"the panic goes on, for the server to log, once the answer is sent")
	assertApplyFailed(t, rec, "b", "division by zero")

	assert.Equal(t, int64(1), a, "the knob applied before the panic got its old value back")
	got, err := reg.Get("a")
	require.NoError(t, err)
	assert.Equal(t, control.Int(a), got, "registry and component agree")
	assert.Empty(t, reg.Audit())
	assert.Equal(t, uint64(1), reg.Stats().ApplyFailed)

	// The panicking knob's component may hold anything: its next change is
	// applied even to the value the registry reports.
	res, err := reg.Apply(control.Request{Who: "operator", Why: "repair", Changes: []control.Change{
		{Knob: "b", Value: control.Int(1)}}})
	require.NoError(t, err, "the panicked batch spent no change budget")
	assert.NotZero(t, res.Batch)
}

// assertApplyFailed checks the answer of a change whose Apply func panicked:
// 500 with the package's JSON error body, code apply_failed, naming the knob.
func assertApplyFailed(t *testing.T, rec *httptest.ResponseRecorder, knob, value string) {
	t.Helper()
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var e struct{ Error, Code string }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e), "body: %q", rec.Body.String())
	assert.Equal(t, "apply_failed", e.Code)
	assert.Equal(t, `control: knob "`+knob+`": apply: panic: `+value, e.Error)
}

// TestRollbackPanicAnswers500: a rollback whose Apply func panics is undone
// like a change's and answers 500 apply_failed over HTTP, counted in
// ApplyFailed, with the knob marked Unsure, before the panic goes on.
func TestRollbackPanicAnswers500(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	broken := false
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "k", Value: 1, Apply: func(int64) error {
		if broken {
			panic("k is stuck")
		}
		return nil
	}}))
	_, err = reg.Apply(control.Request{Who: "t", Changes: []control.Change{{Knob: "k", Value: control.Int(2)}}})
	require.NoError(t, err)
	broken = true

	hr := httptest.NewRequest(http.MethodPost, "/rollback", strings.NewReader(`{"who":"t"}`))
	hr.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	require.PanicsWithValue(t, "k is stuck", func() { reg.Handler().ServeHTTP(rec, hr) })
	assertApplyFailed(t, rec, "k", "k is stuck")

	assert.Equal(t, uint64(1), reg.Stats().ApplyFailed)
	assert.Len(t, reg.Audit(), 1, "the rollback was not recorded")
	infos := reg.Knobs()
	require.Len(t, infos, 1)
	assert.True(t, infos[0].Unsure, "the knob whose Apply panicked is marked unsure")
}

// TestApplyPanicAnswers500OverServer: through a real server, the client of
// a change whose Apply func panics reads the 500 answer (before, the
// connection was dropped: a transport error), and the server logs the panic.
func TestApplyPanicAnswers500OverServer(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "boom", Value: 1,
		Apply: func(int64) error { panic("component bug") }}))
	srv := httptest.NewUnstartedServer(reg.Handler())
	logs := &syncBuffer{}
	srv.Config.ErrorLog = log.New(logs, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)

	resp, err := srv.Client().Post(srv.URL+"/", "application/json",
		strings.NewReader(`{"who":"t","changes":[{"knob":"boom","value":2}]}`))
	require.NoError(t, err, "the client gets an answer, not a dropped connection")
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.Contains(t, string(body), `"code": "apply_failed"`)
	srv.Close() // waits for the connection's goroutine, which logs the panic
	assert.Contains(t, logs.String(), "component bug")
}
