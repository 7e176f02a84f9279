package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Sample is one poll of a gateway: the "host" entry of its control state
// (examples/gateway/planestate.go). Counters are cumulative since the process
// started; the plane differentiates consecutive samples.
type Sample struct {
	// CPUSeconds is the process's user plus system CPU time.
	CPUSeconds float64 `json:"cpu_seconds"`
	// UptimeSeconds is the wall time since the process started, on its own clock. The
	// plane divides CPU by the uptime delta (poll jitter does not enter), and a
	// smaller uptime than last time means the process restarted.
	UptimeSeconds float64 `json:"uptime_seconds"`
	GOMAXPROCS    int     `json:"gomaxprocs"`
	InFlight      int     `json:"in_flight"`  // gauge: commands admitted and not yet done
	Commands      uint64  `json:"commands"`   // commands received
	Errors        uint64  `json:"errors"`     // commands answered with an error
	Shed          uint64  `json:"shed"`       // rejected by the gateway's shedder
	Overloaded    uint64  `json:"overloaded"` // commands the gateway refused OVERLOADED (its batcher's in-flight cap, a shard's share of it, its limiter, its memory guard)
	Throttled     uint64  `json:"throttled"`  // over a backend quota
	// Tenants holds each tenant's counters.
	Tenants map[string]TenantSample `json:"tenants"`
	// Knobs holds the gateway's control knobs (package control) by name, each
	// value as its JSON text, and Changed the names of those changed at runtime
	// (by an operator, an agent or a scenario), sorted. [HTTPPoller] fills them
	// from the same answer as the rest.
	Knobs   map[string]string `json:"knobs,omitempty"`
	Changed []string          `json:"changed,omitempty"`
}

// TenantSample is one tenant's counters on one gateway.
type TenantSample struct {
	Requests  uint64 `json:"requests"`
	Shed      uint64 `json:"shed"`
	Throttled uint64 `json:"throttled"`
}

// check reports a sample the plane cannot use.
func (s Sample) check() error {
	for _, x := range []float64{s.CPUSeconds, s.UptimeSeconds} {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("%w: sample with CPU %v s, uptime %v s", ErrBadState, s.CPUSeconds, s.UptimeSeconds)
		}
	}
	if s.InFlight < 0 {
		return fmt.Errorf("%w: sample with %d in flight", ErrBadState, s.InFlight)
	}
	return nil
}

// Poller reads one gateway's current Sample. A Plane calls it from several
// goroutines at once (one per gateway, at most Config.PollConcurrency), with a
// context bounded by Config.PollTimeout.
type Poller interface {
	Poll(ctx context.Context, g Gateway) (Sample, error)
}

// PollerFunc adapts a func to [Poller].
type PollerFunc func(ctx context.Context, g Gateway) (Sample, error)

// Poll calls f.
func (f PollerFunc) Poll(ctx context.Context, g Gateway) (Sample, error) { return f(ctx, g) }

var _ Poller = PollerFunc(nil)

// HTTPPoller polls GET http://<Gateway.HTTP>/control/, the control surface of
// examples/gateway (package control's handler), and returns the "host" entry of
// its state with its knobs.
type HTTPPoller struct {
	// Client sends the requests. If nil, http.DefaultClient's transport,
	// without following redirects: a gateway's control handler never
	// redirects, and one that did would have another URL's answer (another
	// gateway's state) taken for its own. A redirect is then an answer the
	// plane cannot use ([ErrBadState], a *StatusError).
	Client *http.Client
}

// noRedirects is the client of an HTTPPoller without one, and of FetchRoutes
// and Follow.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

var _ Poller = (*HTTPPoller)(nil)

// maxStateBody bounds a gateway's /control/ answer.
const maxStateBody = 8 << 20

// maxStateRest bounds what is read of an answer after its JSON value, so that
// the connection can be reused.
const maxStateRest = 4 << 10

// Poll implements [Poller]. Errors: the transport's (the gateway is unreachable),
// or one wrapping [ErrBadState] (and a *StatusError, a JSON error or
// [ErrNoHostState]).
func (p *HTTPPoller) Poll(ctx context.Context, g Gateway) (Sample, error) {
	url := "http://" + g.HTTP + "/control/"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Sample{}, err
	}
	c := p.Client
	if c == nil {
		c = noRedirects
	}
	resp, err := c.Do(req)
	if err != nil {
		return Sample{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return Sample{}, fmt.Errorf("%w: %w", ErrBadState,
			&StatusError{URL: url, Status: resp.StatusCode, Body: strings.TrimSpace(string(body))})
	}
	var st struct {
		Knobs []struct {
			Name       string          `json:"name"`
			Value      json.RawMessage `json:"value"`
			LastChange time.Time       `json:"last_change"`
		} `json:"knobs"`
		State struct {
			Host *Sample `json:"host"`
		} `json:"state"`
	}
	body := &readErr{r: resp.Body}
	if err := json.NewDecoder(io.LimitReader(body, maxStateBody)).Decode(&st); err != nil {
		// The body reader's own error (io.ErrUnexpectedEOF too: the connection
		// ended before the announced body) is the transport's. Any other
		// failure is in a body that arrived whole: truncated or invalid JSON,
		// an empty body (the decoder's io.EOF), a value of the wrong type or
		// one its type refuses (a knob's last_change that is not a time).
		if ctx.Err() != nil || body.err != nil {
			return Sample{}, fmt.Errorf("reading %s: %w", url, err) // the transport failed mid-answer
		}
		return Sample{}, fmt.Errorf("%w: decoding %s: %w", ErrBadState, url, err)
	}
	// The decoder stops after the value, before the newline package control
	// writes after it: read to the body's end (a bounded rest), or the
	// transport closes the connection instead of reusing it for the next poll.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxStateRest))
	if st.State.Host == nil {
		return Sample{}, fmt.Errorf("%w: %w", ErrBadState, ErrNoHostState)
	}
	s := *st.State.Host
	// Knobs and Changed come from the knobs list alone: a host entry that
	// carries its own (a gateway publishing a Sample as it is) does not add
	// names that Knobs does not hold.
	s.Knobs, s.Changed = make(map[string]string, len(st.Knobs)), nil
	for _, k := range st.Knobs {
		s.Knobs[k.Name] = string(k.Value)
		if !k.LastChange.IsZero() {
			s.Changed = append(s.Changed, k.Name)
		}
	}
	sort.Strings(s.Changed)
	return s, nil
}

// readErr records the first error of r other than io.EOF.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}
