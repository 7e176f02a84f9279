package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"net/http"

	"github.com/tierkit/tierkit/control"
)

// maxControlBody is what gateControl reads of a /control POST body before it
// passes it on: one byte more than control's own bound (1 MiB), so that the
// registry still refuses a longer body as it always did.
const maxControlBody = 1<<20 + 1

// gateControl refuses a /control change (a POST: a change or a rollback) with
// 503 shutting_down once the gateway has begun to close. The HTTP server
// outlives the gateway (Shutdown stops it last, so that /metrics and
// /control's state are served during the drain); a change that came after
// Close was applied to the closed batcher, shedder and limiter, answered 200
// and audited, for a gateway that serves no command any more. Changes during
// the drain, before Close, still apply: the components serve until then. The
// refusal never reaches the registry, so its Stats (/control/stats) do not
// count it: no outcome of theirs is "the embedder refused to ask".
//
// The change runs under ctlMu held for reading, which Close takes for writing
// to mark the gateway closing: a change is refused, or applied before Close
// closes anything. The body is read before and the answer written after,
// outside the lock, so that a slow client does not hold Close.
//
// Only a change is gated: a POST from a Host that guard (control's own
// AllowedHosts) refuses, or to a path that is no change, goes to h as it is,
// for control's 403, 404 or 405. The gate answered 503 to those too, and
// told a page that reached /control by DNS rebinding that the gateway was
// shutting down.
func (g *Gateway) gateControl(guard control.Config, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !isControlChange(r.URL.Path) || !guard.AllowsHost(r.Host) {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxControlBody))
		if err != nil {
			// control answers a body it cannot read 400 bad_request and
			// counts it (Requests, Rejected), as Stats promises of every
			// change: answered here, it was counted nowhere. It never
			// applies, so it needs no gate.
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), failedRead{err}))
			h.ServeHTTP(w, r)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &bufferedResponse{header: http.Header{}}
		// A knob's Apply func that panics: control answers 500 apply_failed,
		// then lets the panic go on. The answer is kept in rec: write it
		// (serveGated has unlocked) and flush it, then let the panic go on
		// for net/http to log, rather than leave the client a dropped
		// connection. Unflushed, the answer stayed in the response's buffer,
		// which net/http drops with the connection of a panicking handler.
		defer func() {
			if v := recover(); v != nil {
				if rec.status != 0 {
					rec.writeTo(w)
					_ = http.NewResponseController(w).Flush()
				}
				panic(v)
			}
		}()
		if closing := g.serveGated(h, rec, r); closing {
			writeControlError(w, http.StatusServiceUnavailable, "shutting_down",
				"gateway: shutting down: the change was not applied")
			return
		}
		rec.writeTo(w)
	})
}

// isControlChange reports whether path, below /control, is one of control's
// change routes: a change ("/", or "" after StripPrefix) or a rollback.
func isControlChange(path string) bool {
	return path == "" || path == "/" || path == "/rollback"
}

// serveGated serves r into rec under ctlMu held for reading, unless the
// gateway is closing. The unlock is deferred: a knob's Apply func that panics
// goes on as a panic (control undoes its batch first), which net/http
// recovers, and a lock left held there kept Close waiting for good.
func (g *Gateway) serveGated(h http.Handler, rec *bufferedResponse, r *http.Request) (closing bool) {
	g.ctlMu.RLock()
	defer g.ctlMu.RUnlock()
	if g.closing {
		return true
	}
	h.ServeHTTP(rec, r)
	return false
}

// writeControlError answers as control's handler does: {"error", "code"}.
func writeControlError(w http.ResponseWriter, status int, code, msg string) {
	data, _ := json.Marshal(map[string]string{"error": msg, "code": code})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// bufferedResponse keeps a handler's answer in memory, to be written later.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

// writeTo writes the kept answer to w.
func (b *bufferedResponse) writeTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.WriteHeader(cmp.Or(b.status, http.StatusOK))
	_, _ = w.Write(b.body.Bytes())
}

// failedRead is a reader that fails with the error reading a body met.
type failedRead struct{ err error }

func (f failedRead) Read([]byte) (int, error) { return 0, f.err }
