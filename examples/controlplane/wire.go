package controlplane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"time"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/failover"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// wireRoutes is the /api/routes document:
//
//	{"epoch": n, "version": n,
//	 "gateways": {region: base64 of hashring MarshalBinary, ...},
//	 "failover": failover.Table JSON, "rollout": rollout.Config,
//	 "direct": [addr...], "draining": [addr...]}
//
// epoch identifies the plane process (its start time in Unix nanoseconds), so a
// client following a restarted plane (whose versions start again at 1) still sees
// the change; Follow orders documents by (epoch, version).
type wireRoutes struct {
	Epoch    int64             `json:"epoch"`
	Version  uint64            `json:"version"`
	Gateways map[string][]byte `json:"gateways"`
	Failover *failover.Table   `json:"failover"`
	Rollout  *rollout.Config   `json:"rollout"`
	Direct   []string          `json:"direct,omitempty"`
	Draining []string          `json:"draining,omitempty"`
}

// maxRoutesBody bounds a routes document (rings are 2 bytes per slot).
const maxRoutesBody = 64 << 20

// DecodeRoutes parses a routes document as GET /api/routes serves it and returns the
// routes and their version. Every ring is checked by hashring.Unmarshal, the failover
// table by its own decoder, the rollout flags by rollout.New. Every part the plane
// always sends is required: a positive epoch and version, and the gateways, failover
// and rollout members, none of them null, nor a null member inside the rollout
// ("Kill": null). A document without one is refused, not read as "no routes, no
// failover, everything direct": a plane bug or a cut answer that still parses would
// otherwise flip every follower's traffic. Errors wrap [ErrBadRoutes]; the caller
// keeps the routes in force, as [Follow] does.
func DecodeRoutes(data []byte) (client.Routes, uint64, error) {
	w, err := decodeWire(data)
	if err != nil {
		return client.Routes{}, 0, err
	}
	r, err := w.routes()
	return r, w.Version, err
}

func decodeWire(data []byte) (wireRoutes, error) {
	var w wireRoutes
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&w); err != nil {
		return w, fmt.Errorf("%w: %w", ErrBadRoutes, err)
	}
	// Not dec.More: it reports false before a stray '}' or ']'.
	if _, err := dec.Token(); err != io.EOF {
		return w, fmt.Errorf("%w: trailing data", ErrBadRoutes)
	}
	if w.Version == 0 {
		return w, fmt.Errorf("%w: no version", ErrBadRoutes)
	}
	if err := w.complete(data); err != nil {
		return w, fmt.Errorf("%w: %w", ErrBadRoutes, err)
	}
	return w, nil
}

// complete reports a required part that w lacks. A missing or null member decodes
// as its zero value without an error, which reads as no gateways, no failover
// and no rollout rules (everything direct).
func (w wireRoutes) complete(data []byte) error {
	switch {
	case w.Epoch <= 0:
		return errors.New("no epoch")
	case w.Gateways == nil:
		return errors.New("no gateways")
	case w.Failover == nil:
		return errors.New("no failover table")
	case w.Rollout == nil:
		return errors.New("no rollout")
	}
	var doc struct {
		Rollout any `json:"rollout"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	if at := nullAt(doc.Rollout, reflect.TypeFor[rollout.Config](), "rollout"); at != "" {
		return fmt.Errorf("null at %s", at)
	}
	return nil
}

func (w wireRoutes) routes() (client.Routes, error) {
	r := client.Routes{Gateways: make(map[string]*hashring.Ring, len(w.Gateways)), Failover: w.Failover,
		Direct: w.Direct, Draining: w.Draining}
	for region, b := range w.Gateways {
		ring, err := hashring.Unmarshal(b)
		if err != nil {
			return client.Routes{}, fmt.Errorf("%w: region %q: %w", ErrBadRoutes, region, err)
		}
		if region == "" || ring.Len() == 0 {
			return client.Routes{}, fmt.Errorf("%w: region %q has an empty ring or name", ErrBadRoutes, region)
		}
		r.Gateways[region] = ring
	}
	for i, d := range w.Direct {
		if d == "" {
			return client.Routes{}, fmt.Errorf("%w: direct shard %d has no address", ErrBadRoutes, i)
		}
	}
	flags, err := rollout.New(*w.Rollout)
	if err != nil {
		return client.Routes{}, fmt.Errorf("%w: %w", ErrBadRoutes, err)
	}
	r.Rollout = flags
	return r, nil
}

// FetchRoutes GETs a routes document from url (a plane's base URL + "/api/routes")
// and decodes it. Errors: the transport's, a *StatusError, or one wrapping
// [ErrBadRoutes]. A redirect is not followed, as [HTTPPoller] follows none: a
// plane's handler never redirects, and one that did would have another URL's
// routes taken for the plane's; it is a *StatusError with the 3xx status.
func FetchRoutes(ctx context.Context, url string) (client.Routes, uint64, error) {
	w, _, err := fetch(ctx, url, "")
	if err != nil {
		return client.Routes{}, 0, err
	}
	r, err := w.routes()
	return r, w.Version, err
}

// errNotModified is fetch's answer to a matching If-None-Match.
var errNotModified = errors.New("not modified")

// fetch GETs url with If-None-Match: etag (when set) and returns the document and
// its ETag, or errNotModified.
func fetch(ctx context.Context, url, etag string) (wireRoutes, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return wireRoutes{}, "", err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	// Not http.DefaultClient: like the poller, do not follow a redirect. A
	// plane's handler never redirects, and following one applied whatever
	// routes the target served (another plane's, another fleet's gateways).
	resp, err := noRedirects.Do(req)
	if err != nil {
		return wireRoutes{}, "", err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotModified:
		return wireRoutes{}, etag, errNotModified
	case http.StatusOK:
	default:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return wireRoutes{}, "", &StatusError{URL: url, Status: resp.StatusCode}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRoutesBody+1))
	if err != nil {
		return wireRoutes{}, "", err
	}
	if len(data) > maxRoutesBody {
		return wireRoutes{}, "", fmt.Errorf("%w: document over %d bytes", ErrBadRoutes, maxRoutesBody)
	}
	w, err := decodeWire(data)
	return w, resp.Header.Get("ETag"), err
}

// followFetchTimeout is the least bound of one of Follow's fetches.
const followFetchTimeout = time.Second

// MinFollowPeriod is the shortest period [Follow] takes: the plane's least
// cadence ([Config].Cadence), so no faster than the plane can publish. Under
// it the follower would fetch back to back, its ticker's tick being always
// ready after a fetch: a core busy between it and the plane for nothing.
const MinFollowPeriod = time.Millisecond

// Follow keeps c on the routes published at url (a plane's base URL +
// "/api/routes"): it fetches them at once and then every `every`, and calls
// c.SetRoutes only when the plane published a new version (the plane answers 304
// Not Modified otherwise, so an idle follower costs one small request per period).
// Documents are ordered by (epoch, version): one applies when its epoch is higher
// than the one in force (a restarted plane, whose versions start again at 1), or
// equal with a higher version. An older version is a stale answer, and an older
// epoch an older plane process (still answering during a restart behind a load
// balancer): both are ignored, so a follower does not flip between two planes.
//
// WARNING: the epoch is the plane's start time on its wall clock. A plane
// restarted with a clock set back past its predecessor's start (or on a host
// whose clock is behind) publishes a lower epoch, which followers that saw the
// predecessor ignore until they restart: keep plane hosts' clocks synchronized.
// Run one plane (see the package doc); the ordering only bounds the damage of an
// overlap, it does not make several planes agree.
// Each fetch is bounded by the period (at least followFetchTimeout), so a plane
// that never answers does not stop the following. Fetch and SetRoutes failures
// (a redirect included, which is not followed, as in [FetchRoutes]) are retried
// at the next period with the routes in force unchanged. It returns nil when ctx
// ends, and an error at once, before any fetch, for a period under
// [MinFollowPeriod].
func Follow(ctx context.Context, url string, c *client.Client, every time.Duration) error {
	if every < MinFollowPeriod {
		return fmt.Errorf("controlplane: Follow period %v below %v", every, MinFollowPeriod)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var have string     // ETag of the routes in force
	var applied wireKey // their epoch and version
	for {
		fctx, cancel := context.WithTimeout(ctx, max(every, followFetchTimeout))
		w, tag, err := fetch(fctx, url, have)
		cancel()
		// Same epoch: only a newer version (a stale answer must not roll the
		// client back). A higher epoch is a restarted plane: its versions start
		// over. A lower one is an older plane still answering.
		if err == nil && newer(w.Epoch, w.Version, applied) {
			var r client.Routes
			if r, err = w.routes(); err == nil {
				if err = c.SetRoutes(r); err == nil {
					have, applied = tag, wireKey{w.Epoch, w.Version}
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// wireKey is the (epoch, version) of a routes document.
type wireKey struct {
	epoch   int64
	version uint64
}

// newer reports whether a document of epoch and version follows the one in force.
func newer(epoch int64, version uint64, in wireKey) bool {
	return epoch > in.epoch || epoch == in.epoch && version > in.version
}
