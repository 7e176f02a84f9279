package controlplane

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tierkit/tierkit/internal/jsonesc"
	"github.com/tierkit/tierkit/rollout"
)

//go:embed assets
var assets embed.FS

// maxBody bounds a POST body.
const maxBody = 1 << 20

// Handler serves the dashboard and the plane's JSON API:
//
//	GET    /                    the live dashboard (HTML and JS, no external assets)
//	GET    /api/state           State, with its change tag (State.ChangeTag)
//	GET    /api/routes          the published routes (see DecodeRoutes), with an ETag;
//	                            If-None-Match with the current ETag answers 304
//	POST   /api/rollout         a rollout.Config (JSON); answers the rollout it put in force
//	POST   /api/gateways        a Gateway (JSON)
//	DELETE /api/gateways/{id}   remove a gateway
//	POST   /api/drain/{id}      drain a gateway; POST /api/undrain/{id} reverses it
//
// HEAD is served wherever GET is, without the body. Paths match exactly: a
// trailing or doubled slash is another path, and no path is redirected.
//
// Every POST, drain and undrain included, must be sent as Content-Type
// application/json (415 otherwise): a web page cannot send that cross-site
// without the server's consent (a CORS preflight), which the handler never
// gives.
//
// Every change (POST, DELETE) takes an optional If-Match: the State.ChangeTag
// the change is based on ("*" or a list of tags too; tags compare strongly).
// If another change was made since (through the API or the Plane's methods;
// ticks do not count), the change is refused with 412 and {"error": message,
// "change_tag": the current tag}, and nothing changes. The check and the
// change are one step: of several changes based on one tag, one applies.
// Without If-Match a change applies unconditionally; an If-Match without a
// value names no tag and is refused with 412. The dashboard sends the
// tag of the state it shows.
//
// Every error, the router's included, answers {"error": message} with 400 (bad
// JSON, a body that is not UTF-8, or bad values), 403 (a Host not in Config.AllowedHosts, whatever the path),
// 404 (no such path, or an unknown gateway), 405 (a method the path does not
// serve, with an Allow header), 409 (a gateway that conflicts with one the
// plane has), 412 (a stale If-Match, above) or 415 (a POST not declared as
// JSON). A bad body, a conflicting or an unknown gateway answers 400, 409 or
// 404 whatever the If-Match.
//
// WARNING: the handler does no authentication, and without
// Config.AllowedHosts it answers any Host. Loopback alone does not keep web
// pages out: by DNS rebinding, a page on the attacker's domain has the name
// resolve to 127.0.0.1 and then reads the state and drains gateways as a
// same-origin page, the JSON Content-Type included. Serve it on loopback with
// Config.AllowedHosts set to the names it is reached by, or behind a
// middleware that authenticates.
func (p *Plane) Handler() http.Handler {
	static, _ := fs.Sub(assets, "assets")
	files := wholeFiles(http.FileServerFS(static))
	return allowHosts(p.cfg.AllowedHosts, router(map[string]route{
		"/":             {http.MethodGet: files},
		"/dashboard.js": {http.MethodGet: files},
		"/api/state":    {http.MethodGet: p.serveState},
		"/api/routes":   {http.MethodGet: p.serveRoutes},
		"/api/rollout":  {http.MethodPost: needJSON(p.serveRollout)},
		"/api/gateways": {http.MethodPost: needJSON(p.serveAddGateway)},
		"/api/gateways/{id}": {http.MethodDelete: func(w http.ResponseWriter, r *http.Request) {
			p.answer(w, r.PathValue("id"), p.removeGateway(r.PathValue("id"), ifMatch(r)))
		}},
		"/api/drain/{id}": {http.MethodPost: needJSON(func(w http.ResponseWriter, r *http.Request) {
			p.answer(w, r.PathValue("id"), p.setDrained(r.PathValue("id"), true, ifMatch(r)))
		})},
		"/api/undrain/{id}": {http.MethodPost: needJSON(func(w http.ResponseWriter, r *http.Request) {
			p.answer(w, r.PathValue("id"), p.setDrained(r.PathValue("id"), false, ifMatch(r)))
		})},
	}))
}

// wholeFiles serves the dashboard's files whole: it drops the request's Range
// and If-Match headers (and their companions), which http.FileServer would
// answer with a plain-text 416 for a range the file does not have and a
// bodiless 412 for any If-Match (the files carry no ETag), neither of them
// the handler's {"error"} answers. Ranges are optional (RFC 9110): a client
// asking for one gets the whole file with 200.
func wholeFiles(files http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		for _, h := range []string{"Range", "If-Range", "If-Match", "If-Unmodified-Since"} {
			r.Header.Del(h)
		}
		files.ServeHTTP(w, r)
	}
}

func (p *Plane) serveState(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, p.State())
}

func (p *Plane) serveRoutes(w http.ResponseWriter, r *http.Request) {
	pub := p.pub.Load()
	w.Header().Set("ETag", pub.etag)
	w.Header().Set("Cache-Control", "no-cache")
	if etagMatch(r.Header.Get("If-None-Match"), pub.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(pub.wire)
}

func (p *Plane) serveRollout(w http.ResponseWriter, r *http.Request) {
	var cfg rollout.Config
	if err := decodeBody(r, &cfg); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if err := p.setRollout(cfg, ifMatch(r)); err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	// cfg is what the change put in force (the plane keeps a copy): the
	// plane's rollout read now may already be another request's.
	writeJSON(w, http.StatusOK, cfg)
}

func (p *Plane) serveAddGateway(w http.ResponseWriter, r *http.Request) {
	var g Gateway
	if err := decodeBody(r, &g); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if err := p.addGateway(g, ifMatch(r)); err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, g)
}

func (p *Plane) answer(w http.ResponseWriter, id string, err error) {
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	_, v := p.Routes()
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "version": v})
}

func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrUnknownGateway):
		return http.StatusNotFound
	case errors.Is(err, ErrDuplicateGateway):
		return http.StatusConflict
	}
	if _, ok := errors.AsType[*staleError](err); ok {
		return http.StatusPreconditionFailed
	}
	return http.StatusBadRequest
}

func decodeBody(r *http.Request, v any) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return err
	}
	if len(data) > maxBody {
		return fmt.Errorf("controlplane: body over %d bytes", maxBody)
	}
	// encoding/json replaces each byte that is not UTF-8 with U+FFFD: a
	// rollout rule or a gateway ID would apply as something never sent.
	if !utf8.Valid(data) {
		return errors.New("controlplane: bad JSON: not valid UTF-8")
	}
	// JSON null decodes into any struct as a no-op: it would read as the zero
	// value (for a rollout, no rules at all) rather than as the error it is.
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return errors.New("controlplane: bad JSON: null body")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("controlplane: bad JSON: %w", err)
	}
	// Not dec.More: it reports false before a stray '}' or ']'.
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("controlplane: bad JSON: trailing data")
	}
	// Nor may an escape stand for half a surrogate pair ("\ud800"), which
	// the decoder replaces with U+FFFD as it does a byte that is not UTF-8.
	if at := jsonesc.LoneSurrogate(data); at >= 0 {
		return fmt.Errorf("controlplane: bad JSON: escape at offset %d is half a surrogate pair, not a character", at)
	}
	// A null member decodes as a no-op too: "Kill": null would switch the
	// kill switch off, "Percent": null route 0%. Only a list, map or pointer
	// may be null (GET /api/state serves an empty list so).
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		return fmt.Errorf("controlplane: bad JSON: %w", err)
	}
	if at := nullAt(tree, reflect.TypeOf(v).Elem(), ""); at != "" {
		return fmt.Errorf("controlplane: bad JSON: null at %s", at)
	}
	// A member named twice decodes as the last one, matched to its field
	// without regard to case: {"Kill": true, ..., "kill": false} would
	// switch off the kill switch the body reads as switching on.
	if name := jsonesc.RepeatedMember(data); name != "" {
		return fmt.Errorf("controlplane: bad JSON: member %q appears twice in one object", name)
	}
	return nil
}

// nullAt returns the path of the first null in tree (a decoded JSON value)
// where t, the Go type it decodes into, has no null (a string, number,
// boolean or struct), or "" for none. Members t lacks are not checked: the
// decoder refused them already.
func nullAt(tree any, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	check := func(v any, t reflect.Type, path string) string {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			if v == nil {
				return ""
			}
		}
		if v == nil {
			return path
		}
		return nullAt(v, t, path)
	}
	switch x := tree.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			var ft reflect.Type
			switch t.Kind() {
			case reflect.Map:
				ft = t.Elem()
			case reflect.Struct:
				f, ok := jsonField(t, k)
				if !ok {
					continue
				}
				ft = f.Type
			default:
				continue
			}
			if at := check(x[k], ft, path+"."+k); at != "" {
				return at
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return ""
		}
		for i, v := range x {
			if at := check(v, t.Elem(), path+"["+strconv.Itoa(i)+"]"); at != "" {
				return at
			}
		}
	}
	return ""
}

// jsonField returns the field of the struct type t that encoding/json
// decodes the member name into: its tag's name, or its own name, either
// matched without regard to case.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if strings.EqualFold(tag, name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func writeError(w http.ResponseWriter, status int, err error) {
	body := map[string]string{"error": err.Error()}
	if se, ok := errors.AsType[*staleError](err); ok {
		body["change_tag"] = se.current
	}
	data, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// etagMatch reports whether an If-None-Match header names etag: "*", or a
// list of tags compared weakly (W/"x" matches "x"), as RFC 9110 says for
// If-None-Match.
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}
