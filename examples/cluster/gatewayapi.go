package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/tierkit/tierkit/control"
)

// The gateways' /control HTTP API as the cluster drives it: SetKnobs, which
// POSTs a change request, and the reads of a gateway's state snapshot (the
// "host" entry the control plane polls). Reading knobs back and restoring
// them is in knobs.go.

// SetKnobs changes knobs on the gateways through their /control HTTP API (a
// POST of a control.Request), as an operator would.
func (c *Cluster) SetKnobs(ctx context.Context, gws []*gatewayProc, why string, kv ...any) error {
	if len(kv)%2 != 0 {
		return errors.New("cluster: SetKnobs wants knob, value pairs")
	}
	req := control.Request{Who: "cluster", Why: why}
	for i := 0; i < len(kv); i += 2 {
		var v control.Value
		switch x := kv[i+1].(type) {
		case int:
			v = control.Int(int64(x))
		case float64:
			v = control.Float(x)
		case time.Duration:
			v = control.Duration(x)
		case bool:
			v = control.Bool(x)
		default:
			return fmt.Errorf("cluster: knob %v: unsupported value %T", kv[i], x)
		}
		req.Changes = append(req.Changes, control.Change{Knob: kv[i].(string), Value: v})
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	var errs []error
	for _, g := range gws {
		errs = append(errs, c.post(ctx, "http://"+g.HTTP+"/control/", body))
	}
	return errors.Join(errs...)
}

// post sends a change request; one refused by the registry's change budget
// (429) is sent again for up to 5 s, so a restore is not lost.
func (c *Cluster) post(ctx context.Context, url string, body []byte) error {
	var last error
	err := poll(ctx, 5*time.Second, 100*time.Millisecond, func() (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return false, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.hc.Do(req)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		switch resp.StatusCode {
		case http.StatusOK:
			return true, nil
		case http.StatusTooManyRequests:
			last = fmt.Errorf("cluster: POST %s: %s: %s", url, resp.Status, data)
			return false, nil
		}
		return false, fmt.Errorf("cluster: POST %s: %s: %s", url, resp.Status, data)
	})
	if err != nil && last != nil {
		return fmt.Errorf("%w (%w)", last, err)
	}
	return err
}

// GatewayState reads a gateway's /control/state snapshot.
func (c *Cluster) GatewayState(ctx context.Context, g *gatewayProc) (map[string]json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+g.HTTP+"/control/state", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("cluster: state of %s: %w", g.ID, err)
	}
	return out, nil
}

// HostState is the gateway's "host" state entry (examples/gateway's
// planestate.go), the same the control plane polls.
type HostState struct {
	CPUSeconds    float64 `json:"cpu_seconds"`
	UptimeSeconds float64 `json:"uptime_seconds"`
	InFlight      int     `json:"in_flight"`
	Commands      uint64  `json:"commands"`
	Shed          uint64  `json:"shed"`
	Overloaded    uint64  `json:"overloaded"`
	Tenants       map[string]struct {
		Requests uint64 `json:"requests"`
		Shed     uint64 `json:"shed"`
	} `json:"tenants"`
}

// Host reads a gateway's "host" state. A state that cannot be read is read
// again for up to 2 s: the gateway's /control/state answers an error while
// one of its snapshots holds a NaN (aimd's load before its second sample).
func (c *Cluster) Host(ctx context.Context, g *gatewayProc) (HostState, error) {
	var h HostState
	var last error
	err := poll(ctx, 2*time.Second, 20*time.Millisecond, func() (bool, error) {
		st, err := c.GatewayState(ctx, g)
		if err == nil {
			err = json.Unmarshal(st["host"], &h)
		}
		last = err
		return err == nil, nil
	})
	if err != nil {
		return h, fmt.Errorf("cluster: host state of %s: %w (%w)", g.ID, last, err)
	}
	return h, nil
}

// Hosts reads every running gateway's "host" state, by gateway ID.
func (c *Cluster) Hosts(ctx context.Context) (map[string]HostState, error) {
	out := map[string]HostState{}
	for _, g := range c.Gateways {
		if !g.alive() {
			continue
		}
		h, err := c.Host(ctx, g)
		if err != nil {
			return nil, err
		}
		out[g.ID] = h
	}
	return out, nil
}
