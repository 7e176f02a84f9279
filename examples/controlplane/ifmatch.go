package controlplane

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// changeTagLocked returns the change tag ([State].ChangeTag): an entity tag of
// the plane's epoch and its count of accepted changes, so a tag read from an
// earlier process never matches.
func (p *Plane) changeTagLocked() string {
	return `"` + strconv.FormatInt(p.epoch, 36) + "-c" + strconv.FormatUint(p.changes, 10) + `"`
}

// staleError refuses a change whose If-Match names no current change tag.
type staleError struct {
	ifMatch string // as sent
	current string // the change tag now
}

func (e *staleError) Error() string {
	if e.ifMatch == emptyIfMatch {
		return "controlplane: If-Match names no change tag (an empty list): the change tag is now " +
			e.current + " (read the state and send its tag, or no If-Match for an unconditional change)"
	}
	return fmt.Sprintf("controlplane: If-Match %s is stale: the change tag is now %s "+
		"(the plane changed since; read the state again and redo the change)", e.ifMatch, e.current)
}

// emptyIfMatch is ifMatch's answer for an If-Match field with no value: an
// empty list, which names no tag and so matches none (RFC 9110 13.1.1). It is
// not "no If-Match": the client meant to condition its change.
const emptyIfMatch = ","

// ifMatch returns r's If-Match header, its lines joined; "" for none,
// emptyIfMatch for a field without a value.
func ifMatch(r *http.Request) string {
	vs := r.Header.Values("If-Match")
	h := strings.TrimSpace(strings.Join(vs, ","))
	if h == "" && len(vs) > 0 {
		return emptyIfMatch
	}
	return h
}

// ifMatchLocked checks the precondition of a change: nil for no If-Match (""),
// for "*" and for a list naming the current change tag; a *staleError
// otherwise. Tags compare strongly, as RFC 9110 says for If-Match: a weak tag
// (W/"...") never matches.
func (p *Plane) ifMatchLocked(header string) error {
	if header == "" {
		return nil
	}
	cur := p.changeTagLocked()
	for t := range strings.SplitSeq(header, ",") {
		if t = strings.TrimSpace(t); t == "*" || t == cur {
			return nil
		}
	}
	return &staleError{ifMatch: header, current: cur}
}
