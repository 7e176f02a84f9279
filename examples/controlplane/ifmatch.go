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
	return fmt.Sprintf("controlplane: If-Match %s is stale: the change tag is now %s "+
		"(the plane changed since; read the state again and redo the change)", e.ifMatch, e.current)
}

// ifMatch returns r's If-Match header, its lines joined; "" for none.
func ifMatch(r *http.Request) string {
	return strings.TrimSpace(strings.Join(r.Header.Values("If-Match"), ","))
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
