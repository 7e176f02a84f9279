package controlplane

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// route is one path of the handler: its handler by method.
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

// idPrefixes are the paths that end in one {id} segment.
var idPrefixes = []string{"/api/gateways/", "/api/drain/", "/api/undrain/"}

// router serves routes by exact path: unlike http.ServeMux it neither cleans
// nor redirects a path (a POST redirected is replayed as a GET), and it answers
// its own refusals as JSON like the handlers' errors. A pattern ending in {id}
// matches one non-empty, unescaped segment, which r.PathValue("id") returns.
//
// It follows package control's router (exact paths, HEAD served by GET, JSON
// 404 and 405 with an Allow header) but is not shared with it: this one
// matches the escaped path with {id} segments and answers {"error"} without
// control's "code", and a general router is no part of control's API.
// hostAllowed likewise mirrors control.Config.AllowedHosts.
func router(routes map[string]route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, id := matchRoute(r.URL)
		rt, ok := routes[key]
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Errorf("controlplane: no route %q", r.URL.EscapedPath()))
			return
		}
		h, ok := rt[r.Method]
		if !ok && r.Method == http.MethodHead {
			if h, ok = rt[http.MethodGet]; ok {
				w = headWriter{w}
			}
		}
		if !ok {
			allow := rt.allow()
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("controlplane: method %s not allowed on %q (allow %s)",
				r.Method, key, allow))
			return
		}
		if id != "" {
			r.SetPathValue("id", id)
		}
		h(w, r)
	})
}

// matchRoute returns the route key of u's path and, for an {id} pattern, the id.
func matchRoute(u *url.URL) (key, id string) {
	path := u.EscapedPath()
	if path == "" {
		path = "/" // the mount point without its slash, after http.StripPrefix
	}
	for _, prefix := range idPrefixes {
		seg, ok := strings.CutPrefix(path, prefix)
		if !ok || seg == "" || strings.Contains(seg, "/") {
			continue
		}
		if id, err := url.PathUnescape(seg); err == nil && id != "" {
			return prefix + "{id}", id
		}
	}
	return path, ""
}

// needJSON refuses a POST whose body is not declared as application/json with
// 415. A browser sends a cross-site POST of text/plain, a form or no body
// without asking; for application/json it asks the server first (a CORS
// preflight, OPTIONS, which the router refuses), so a web page an operator
// visits cannot drive a plane served on loopback.
func needJSON(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctype := r.Header.Get("Content-Type")
		if mt, _, err := mime.ParseMediaType(ctype); err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType,
				fmt.Errorf("controlplane: Content-Type %q is not application/json", ctype))
			return
		}
		h(w, r)
	}
}

// headWriter serves HEAD with a GET handler: headers and status, no body.
// (net/http's server drops the body of a HEAD answer too; this holds for any
// ResponseWriter.)
type headWriter struct{ http.ResponseWriter }

func (w headWriter) Write(p []byte) (int, error) { return len(p), nil }

// allowHosts refuses with 403, before routing, a request whose Host header
// names none of hosts (Config.AllowedHosts); with no hosts it answers any.
func allowHosts(hosts []string, h http.Handler) http.Handler {
	if len(hosts) == 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(hosts, r.Host) {
			writeError(w, http.StatusForbidden, fmt.Errorf("controlplane: Host %q is not allowed", r.Host))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether the Host header host names one of hosts: the
// name without its port, case-insensitively, an IPv6 address without
// brackets; an IP address as an address, an IPv4-mapped IPv6 one as its
// IPv4 address and any spelling of an IPv6 one alike (compared as strings,
// [::ffff:127.0.0.2] was not 127.0.0.2).
func hostAllowed(hosts []string, host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	addr, addrErr := netip.ParseAddr(host)
	for _, h := range hosts {
		if a, err := netip.ParseAddr(h); err == nil {
			if addrErr == nil && a.Unmap() == addr.Unmap() {
				return true
			}
		} else if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}
