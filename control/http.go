package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tierkit/tierkit/internal/jsonesc"
)

// maxBody bounds a request body of the HTTP API.
const maxBody = 1 << 20

// maxMessage bounds the bytes of an error answer's message.
const maxMessage = 512

// Handler serves the registry as JSON over HTTP. Mount it with a prefix strip:
//
//	mux.Handle("/control/", http.StripPrefix("/control", reg.Handler()))
//
// Routes, relative to the mount point:
//
//	GET  /          {"knobs": [Info...], "state": {name: snapshot...}}
//	GET  /knobs     [Info...]
//	GET  /state     {name: snapshot...}
//	GET  /audit     [Entry...], oldest first
//	GET  /stats     Stats
//	POST /          a Request; answers a Result (add "dry_run": true to preview)
//	POST /rollback  {"who": "...", "why": "..."}; answers a Result
//
// A POST body must be sent as Content-Type application/json (415
// unsupported_media_type otherwise): a web page cannot send that cross-site
// without the server's consent, which the handler never gives.
//
// HEAD is served wherever GET is, without the body. Paths match exactly: the
// mount point without its slash is /, but /knobs/ or //knobs is not /knobs.
//
// Every error, the router's included, answers {"error": message, "code":
// code} (the message cut at 512 bytes) with a status: 400 bad_request or invalid_value, 403 forbidden_host
// (a Host not in Config.AllowedHosts), 404 not_found (no such path) or
// unknown_knob, 405 method_not_allowed (with an Allow header), 409
// nothing_to_rollback, 415 unsupported_media_type, 422 out_of_bounds, 429
// rate_limited (with Retry-After), 500 apply_failed (a knob's Apply func
// refused or panicked, in a change or a rollback: the batch is undone) or
// state_failed (a state func panicked); a body over 1 MiB is a bad_request.
// After a panic's answer is sent and flushed, the panic goes on with its
// value, for the server (or a middleware) to log. A request without "who" is
// recorded as the client's address.
//
// WARNING: the handler does no authentication, and by default it answers
// any Host. Loopback alone does not keep web pages out: by DNS rebinding, a
// page on the attacker's domain has the name resolve to 127.0.0.1 and then
// reads and changes the knobs as a same-origin page, the JSON Content-Type
// included. Serve it on a loopback listener (not 0.0.0.0), set
// Config.AllowedHosts to the names it is reached by, and put authentication
// in front (a middleware, or a Unix socket) where more than the host's own
// users can reach it.
func (r *Registry) Handler() http.Handler {
	routes := map[string]route{
		"/": {
			http.MethodGet: func(w http.ResponseWriter, _ *http.Request) {
				r.serveState(w, func(state map[string]any) any {
					return struct {
						Knobs []Info         `json:"knobs"`
						State map[string]any `json:"state"`
					}{r.Knobs(), state}
				})
			},
			http.MethodPost: r.serveApply,
		},
		"/knobs": {http.MethodGet: func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusOK, r.Knobs())
		}},
		"/state": {http.MethodGet: func(w http.ResponseWriter, _ *http.Request) {
			r.serveState(w, func(state map[string]any) any { return state })
		}},
		"/audit": {http.MethodGet: func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusOK, r.Audit())
		}},
		"/stats": {http.MethodGet: func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusOK, r.Stats())
		}},
		"/rollback": {http.MethodPost: r.serveRollback},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
		r.mu.RLock()
		allowed := r.cfg.AllowsHost(hr.Host)
		r.mu.RUnlock()
		if !allowed {
			writeError(w, &routeError{status: http.StatusForbidden, msg: fmt.Sprintf("Host %q is not allowed", hr.Host)})
			return
		}
		path := hr.URL.Path
		if path == "" {
			path = "/" // the mount point without its slash, after StripPrefix
		}
		rt, ok := routes[path]
		if !ok {
			writeError(w, &routeError{status: http.StatusNotFound, msg: fmt.Sprintf("no route %q", path)})
			return
		}
		h, ok := rt[hr.Method]
		if !ok && hr.Method == http.MethodHead {
			if h, ok = rt[http.MethodGet]; ok {
				w = headWriter{w}
			}
		}
		if !ok {
			allow := rt.allow()
			w.Header().Set("Allow", allow)
			writeError(w, &routeError{status: http.StatusMethodNotAllowed,
				msg: fmt.Sprintf("method %s not allowed on %q (allow %s)", hr.Method, path, allow)})
			return
		}
		h(w, hr)
	})
}

// serveState answers body(state) for GET / and GET /state. A state func that
// panics answers 500 state_failed, as every error answers, and is counted in
// Stats.StatePanics; the panic then goes on with its value, as a panicking
// Apply func's does, so that the server (or a middleware) logs it. The answer
// is flushed first: net/http drops the connection of a panicking handler, and
// without it the client got no answer at all.
func (r *Registry) serveState(w http.ResponseWriter, body func(state map[string]any) any) {
	var running string
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		r.n.statePanics.Add(1)
		writeError(w, &stateError{name: running, value: v})
		_ = http.NewResponseController(w).Flush()
		panic(v)
	}()
	state := encodable(r.state(&running), &running)
	running = ""
	writeJSON(w, http.StatusOK, body(state))
}

// stateError reports a state func that panicked while the handler served it.
type stateError struct {
	name  string
	value any
}

func (e *stateError) Error() string {
	return fmt.Sprintf("control: state %q panicked: %v", e.name, e.value)
}

func (r *Registry) serveApply(w http.ResponseWriter, hr *http.Request) {
	var req Request
	err := decode(hr, &req)
	if err == nil {
		err = namedChanges(req)
	}
	if err != nil {
		r.refuseBody(w, err)
		return
	}
	if req.Who == "" {
		req.Who = "http:" + hr.RemoteAddr
	}
	var panicked string
	defer answerApplyPanic(w, &panicked)
	res, err := r.apply(time.Now, req, &panicked)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (r *Registry) serveRollback(w http.ResponseWriter, hr *http.Request) {
	var req struct{ Who, Why string }
	if err := decode(hr, &req); err != nil {
		r.refuseBody(w, err)
		return
	}
	if req.Who == "" {
		req.Who = "http:" + hr.RemoteAddr
	}
	var panicked string
	defer answerApplyPanic(w, &panicked)
	res, err := r.rollback(time.Now, req.Who, req.Why, &panicked)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// refuseBody answers a POST / or POST /rollback whose body is no request
// (bad_request, or unsupported_media_type) and counts it in Requests and
// Rejected: it is a change request refused by validation, as the same
// mistakes made through the Go API are (a change without a value there is a
// *ValueError), and Stats promises that each request counts in one outcome.
func (r *Registry) refuseBody(w http.ResponseWriter, err error) {
	r.n.requests.Add(1)
	r.n.rejected.Add(1)
	writeError(w, err)
}

// answerApplyPanic, deferred by POST / and POST /rollback, answers a batch
// failed by a panicking Apply func as 500 apply_failed naming the knob (the
// registry has undone the batch and marked the knob Unsure by then), then
// lets the panic go on with its value, as serveState does for a state func,
// so that the server (or a middleware) logs it. The answer is flushed first:
// net/http drops the connection of a panicking handler. A panic that did not
// come from an Apply func (*knob is empty) only goes on.
func answerApplyPanic(w http.ResponseWriter, knob *string) {
	v := recover()
	if v == nil {
		return
	}
	if *knob != "" {
		writeError(w, &ApplyError{Knob: *knob, Err: panicError(v)})
		_ = http.NewResponseController(w).Flush()
	}
	panic(v)
}

// route is one path of the HTTP API: its handler by method.
type route map[string]http.HandlerFunc

// allow lists the route's methods for an Allow header, HEAD with GET.
func (rt route) allow() string {
	var ms []string
	for m := range rt {
		ms = append(ms, m)
		if m == http.MethodGet {
			ms = append(ms, http.MethodHead)
		}
	}
	slices.Sort(ms)
	return strings.Join(ms, ", ")
}

// routeError is the router's own refusal: no such path, not that method, or
// a Host not in Config.AllowedHosts.
type routeError struct {
	status int
	msg    string
}

func (e *routeError) Error() string { return "control: " + e.msg }

// headWriter serves HEAD with a GET handler: headers and status, no body.
// (net/http's server drops the body of a HEAD answer too; this holds for any
// ResponseWriter.)
type headWriter struct{ http.ResponseWriter }

func (w headWriter) Write(p []byte) (int, error) { return len(p), nil }

// Unwrap gives http.ResponseController the writer underneath.
func (w headWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// DecodeRequest parses a JSON change request as POST / takes it; a body that
// is not valid UTF-8, anything but an object (null included), unknown fields, a member named twice in one
// object (names compare without regard to case, as encoding/json matches
// them), a member whose value is null ("dry_run": null would otherwise read
// as false and apply the change), trailing data and a change without a knob
// name (a null change included) or without a value are errors matching
// [ErrBadRequest]. It is the HTTP path minus the transport, for callers that
// receive requests another way.
func DecodeRequest(data []byte) (Request, error) {
	var req Request
	if err := decodeStrict(data, &req); err != nil {
		return req, err
	}
	return req, namedChanges(req)
}

// namedChanges refuses a change without a knob name or without a value as a
// malformed request: JSON null, or an object without "knob", decodes to one
// that Apply would answer as a knob named "" that does not exist (404 over
// HTTP), and an object without "value" to one that Apply would answer as a
// value of the wrong kind ("an int knob does not take an invalid").
func namedChanges(req Request) error {
	for i, c := range req.Changes {
		if c.Knob == "" {
			return badRequest{fmt.Errorf("change %d has no knob name", i)}
		}
		if !c.Value.IsValid() {
			return badRequest{fmt.Errorf("change %d (knob %q) has no value", i, clip(c.Knob, maxQuote))}
		}
	}
	return nil
}

type badRequest struct{ err error }

func (e badRequest) Error() string { return "control: bad request: " + e.err.Error() }
func (e badRequest) Unwrap() error { return e.err }

// Is makes errors.Is(err, ErrBadRequest) true.
func (e badRequest) Is(target error) bool { return target == ErrBadRequest }

// unsupportedMediaType refuses a body not declared as JSON.
type unsupportedMediaType struct{ ctype string }

func (e unsupportedMediaType) Error() string {
	return fmt.Sprintf("control: Content-Type %q is not application/json", e.ctype)
}

// decode reads a POST body into v. The body must be declared as JSON: a
// browser sends a cross-site POST of text/plain or a form without asking, but
// asks the server first (a CORS preflight, which this handler refuses) for
// application/json, so a web page an operator visits cannot change knobs on a
// handler served on loopback. (A page on a rebound domain is same-origin and
// needs no consent: Config.AllowedHosts is the guard there.)
func decode(hr *http.Request, v any) error {
	ctype := hr.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ctype); err != nil || mt != "application/json" {
		return unsupportedMediaType{ctype}
	}
	data, err := io.ReadAll(io.LimitReader(hr.Body, maxBody+1))
	if err != nil {
		return badRequest{err}
	}
	if len(data) > maxBody {
		return badRequest{fmt.Errorf("body over %d bytes", maxBody)}
	}
	return decodeStrict(data, v)
}

func decodeStrict(data []byte, v any) error {
	if len(data) == 0 {
		return badRequest{errors.New("empty body")}
	}
	// JSON is UTF-8, and encoding/json replaces each byte that is not with
	// U+FFFD: a string knob would be set to a value the client never sent,
	// and the audit would keep a who or why the Go API refuses.
	if !utf8.Valid(data) {
		return badRequest{errors.New("the body is not valid UTF-8")}
	}
	// JSON null decodes into a struct as a no-op: without this check a
	// rollback of null ran as one of {}.
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] != '{' {
		return badRequest{errors.New("the body is not a JSON object")}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, ErrBadRequest) { // a Value's own refusal, said once
			return err
		}
		return badRequest{err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest{errors.New("trailing data after the JSON object")}
	}
	// Valid UTF-8 can still escape half a surrogate pair, which
	// encoding/json decodes as U+FFFD as it does a byte that is not UTF-8.
	if i := jsonesc.LoneSurrogate(data); i >= 0 {
		return badRequest{fmt.Errorf("a string escapes half a surrogate pair at offset %d", i)}
	}
	return duplicateKey(data)
}

// duplicateKey refuses an object with two members of one name: encoding/json
// keeps the last, matching names to fields without regard to case, so
// {"dry_run": true, ..., "DRY_RUN": false} applied what reads as a preview.
// It refuses a member whose value is null too: encoding/json leaves the
// field as it was, so "dry_run": null (a template's unset variable) applied
// the change it meant to preview, and "strict": null clamped a value it
// meant to have refused.
// data is valid JSON (decoded already, so its objects hold only the fields
// of Request and Change and a duplicate comes early): a member name follows
// a '{' or a ',' of an object.
func duplicateKey(data []byte) error {
	type level struct {
		obj, key bool // key: the next string is a member name
		names    [][]byte
	}
	var stack []level
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			stack = append(stack, level{obj: data[i] == '{', key: data[i] == '{'})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			stack[len(stack)-1].key = stack[len(stack)-1].obj
		case '"':
			j, esc := i+1, false
			for ; data[j] != '"'; j++ {
				if data[j] == '\\' {
					j, esc = j+1, true
				}
			}
			if l := &stack[len(stack)-1]; l.key {
				name := data[i+1 : j]
				if esc {
					var s string
					_ = json.Unmarshal(data[i:j+1], &s)
					name = []byte(s)
				}
				for _, n := range l.names {
					if bytes.EqualFold(n, name) {
						return badRequest{fmt.Errorf("member %q appears twice in one object", name)}
					}
				}
				l.names, l.key = append(l.names, name), false
				if nullValue(data[j+1:]) {
					return badRequest{fmt.Errorf("member %q is null: leave it out for its default", name)}
				}
			}
			i = j
		}
	}
	return nil
}

// nullValue reports whether rest, the JSON after a member name, holds the
// value null: in valid JSON, a value that starts with 'n' is null.
func nullValue(rest []byte) bool {
	rest = bytes.TrimLeft(rest, " \t\r\n")
	rest = bytes.TrimLeft(bytes.TrimPrefix(rest, []byte(":")), " \t\r\n")
	return len(rest) > 0 && rest[0] == 'n'
}

func writeError(w http.ResponseWriter, err error) {
	status, code := http.StatusInternalServerError, "internal"
	var (
		be *BoundsError
		ve *ValueError
		rl *RateLimitError
		ae *ApplyError
		br badRequest
		re *routeError
		um unsupportedMediaType
		se *stateError
	)
	switch {
	case errors.As(err, &ae):
		// First: a component's error may wrap any of the errors below.
		status, code = http.StatusInternalServerError, "apply_failed"
	case errors.As(err, &re):
		status, code = re.status, "not_found"
		switch re.status {
		case http.StatusMethodNotAllowed:
			code = "method_not_allowed"
		case http.StatusForbidden:
			code = "forbidden_host"
		}
	case errors.As(err, &um):
		status, code = http.StatusUnsupportedMediaType, "unsupported_media_type"
	case errors.As(err, &br), errors.Is(err, ErrBadRequest), errors.Is(err, ErrEmptyRequest), errors.Is(err, ErrDuplicateChange):
		status, code = http.StatusBadRequest, "bad_request"
	case errors.Is(err, ErrUnknownKnob):
		status, code = http.StatusNotFound, "unknown_knob"
	case errors.As(err, &ve):
		status, code = http.StatusBadRequest, "invalid_value"
	case errors.As(err, &be):
		status, code = http.StatusUnprocessableEntity, "out_of_bounds"
	case errors.As(err, &rl):
		status, code = http.StatusTooManyRequests, "rate_limited"
		// Whole seconds, rounded up; adding a second less 1 ns first would
		// overflow for a wait near the largest Duration.
		secs := int64(rl.RetryAfter / time.Second)
		if rl.RetryAfter%time.Second != 0 {
			secs++
		}
		w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	case errors.Is(err, ErrNothingToRollback):
		status, code = http.StatusConflict, "nothing_to_rollback"
	case errors.As(err, &se):
		status, code = http.StatusInternalServerError, "state_failed"
	}
	// Cut: the message may quote the client (an unknown knob or field), and
	// JSON writes some bytes as six.
	writeJSON(w, status, struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}{clip(err.Error(), maxMessage), code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		status = http.StatusInternalServerError
		data, _ = json.Marshal(map[string]string{"error": "control: encode: " + err.Error(), "code": "internal"})
	}
	data = append(data, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// encodable replaces each state JSON cannot encode (a NaN or infinite float, a
// channel, a cycle) by {"error": message}, so one component's bad snapshot
// does not turn the whole answer into a 500 for whoever polls it. It keeps
// in *running the name of the state it encodes: a snapshot whose MarshalJSON
// panics is that state's panic, and the answer must name it.
func encodable(states map[string]any, running *string) map[string]any {
	for name, v := range states {
		*running = name
		if _, err := json.Marshal(v); err != nil {
			states[name] = map[string]string{"error": err.Error()}
		}
	}
	return states
}
