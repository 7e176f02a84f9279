package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/tierkit/tierkit/control"
)

// savedKnobs holds, per gateway, the values some knobs had before a
// scenario changed them, as the changes that set them back.
type savedKnobs map[*gatewayProc][]control.Change

// readKnobs reads the named knobs' values on each of gws from its /control
// HTTP API (GET /control/knobs), so that a scenario can leave the gateways
// as it found them (restoreKnobs) rather than at values it assumes.
func (c *Cluster) readKnobs(ctx context.Context, gws []*gatewayProc, names ...string) (savedKnobs, error) {
	out := savedKnobs{}
	for _, g := range gws {
		values, err := c.knobValues(ctx, g)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			v, ok := values[n]
			if !ok {
				return nil, fmt.Errorf("cluster: gateway %s has no knob %s", g.ID, n)
			}
			out[g] = append(out[g], control.Change{Knob: n, Value: v})
		}
	}
	return out, nil
}

// knobValues reads g's knobs, by name.
func (c *Cluster) knobValues(ctx context.Context, g *gatewayProc) (map[string]control.Value, error) {
	url := "http://" + g.HTTP + "/control/knobs"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("cluster: GET %s: %s: %s", url, resp.Status, data)
	}
	var knobs []struct {
		Name  string        `json:"name"`
		Value control.Value `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&knobs); err != nil {
		return nil, fmt.Errorf("cluster: knobs of %s: %w", g.ID, err)
	}
	out := make(map[string]control.Value, len(knobs))
	for _, k := range knobs {
		out[k.Name] = k.Value
	}
	return out, nil
}

// restoreKnobs sets the knobs saved by readKnobs back on each of gws.
func (c *Cluster) restoreKnobs(ctx context.Context, gws []*gatewayProc, why string, saved savedKnobs) error {
	var errs []error
	for _, g := range gws {
		if len(saved[g]) == 0 {
			continue
		}
		body, err := json.Marshal(control.Request{Who: "cluster", Why: why, Changes: saved[g]})
		if err != nil {
			return err
		}
		errs = append(errs, c.post(ctx, "http://"+g.HTTP+"/control/", body))
	}
	return errors.Join(errs...)
}
