package controlplane_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// answerFunc answers every request with a 200 and its body, as a gateway whose
// /control/ answer arrived whole.
type answerFunc func() []byte

func (a answerFunc) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(a()))}, nil
}

// FuzzHTTPPoll polls a gateway whose /control/ answer is arbitrary bytes that
// arrive whole. No panic; an error wraps ErrBadState (the gateway answered: it is
// not down); a sample's Changed is sorted and names knobs of Knobs; and the
// sample, written back as a gateway's answer, polls back the same (knob values
// as compact JSON). Poll reset Knobs but kept a "changed" list that the host
// entry itself carried: Changed named knobs that Knobs did not hold.
func FuzzHTTPPoll(f *testing.F) {
	for _, s := range []string{
		`{"knobs": [{"name": "shed.capacity", "value": 64, "last_change": "2026-01-01T00:00:00Z"}, {"name": "mode", "value": "fifo"}],
		  "state": {"host": {"cpu_seconds": 12.5, "uptime_seconds": 30, "gomaxprocs": 2, "in_flight": 3, "commands": 1000,
		  "errors": 1, "shed": 2, "overloaded": 0, "throttled": 4, "tenants": {"a": {"requests": 10, "shed": 1, "throttled": 2}}}}}`,
		`{"knobs": [{"name": "z", "value": {"x": [1, 2]}, "last_change": "2026-01-01T00:00:00Z"}, {"name": "a", "value": true, "last_change": "2026-01-01T00:00:01Z"}],
		  "state": {"host": {"cpu_seconds": 0, "uptime_seconds": 0}}}`,
		`{"knobs": [{"name": "a", "value": 1, "last_change": "2026-01-01T00:00:00Z"}, {"name": "a", "value": 2}], "state": {"host": {}}}`,
		`{"state": {"host": null}}`, `{"state": {}}`, `[]`, ``, `{"knobs": [{"name": "a", "value": 1, "last_change": 5}], "state": {"host": {}}}`,
		`{"state": {"host": {"cpu_seconds": 1e400}}}`, `{"state": {"host": {"changed": ["ghost"], "knobs": {"ghost": "1"}}}}`, `{"state": {"host": {"tenants": {"a": {"requests": -1}}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var answer []byte
		p := &controlplane.HTTPPoller{Client: &http.Client{Transport: answerFunc(func() []byte { return answer })}}
		g := controlplane.Gateway{ID: "eu-1", Region: "eu", RESP: "gw:6379", HTTP: "gw:8080", Cores: 1}
		answer = body
		s, err := p.Poll(context.Background(), g)
		if err != nil {
			require.ErrorIs(t, err, controlplane.ErrBadState)
			return
		}
		require.True(t, slices.IsSorted(s.Changed), "changed %q", s.Changed)
		for _, name := range s.Changed {
			require.Contains(t, s.Knobs, name)
		}

		// Written back as an answer (each knob once, the changed ones with a
		// last_change), the sample polls back the same.
		changed := slices.Compact(slices.Clone(s.Changed)) // a knob listed twice is changed once
		type knob struct {
			Name       string          `json:"name"`
			Value      json.RawMessage `json:"value,omitempty"`
			LastChange string          `json:"last_change,omitempty"`
		}
		var st struct {
			Knobs []knob `json:"knobs"`
			State struct {
				Host controlplane.Sample `json:"host"`
			} `json:"state"`
		}
		want := s
		want.Knobs = make(map[string]string, len(s.Knobs))
		for name, v := range s.Knobs {
			k := knob{Name: name}
			if v != "" {
				var c bytes.Buffer
				require.NoError(t, json.Compact(&c, []byte(v)), "knob %q: value %q is not JSON", name, v)
				k.Value = c.Bytes()
			}
			if _, ok := slices.BinarySearch(changed, name); ok {
				k.LastChange = "2026-01-01T00:00:00Z"
			}
			st.Knobs = append(st.Knobs, k)
			want.Knobs[name] = string(k.Value)
		}
		want.Changed = changed
		if len(want.Changed) == 0 {
			want.Changed = nil
		}
		st.State.Host = s
		st.State.Host.Knobs, st.State.Host.Changed = nil, nil // not part of the host entry
		var w bytes.Buffer
		enc := json.NewEncoder(&w)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(st))
		answer = w.Bytes()
		again, err := p.Poll(context.Background(), g)
		require.NoError(t, err, "answer %s", answer)
		require.Equal(t, want, again, "answer %s", answer)
	})
}
