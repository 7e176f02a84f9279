package main

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestHotGatewayRestoresAfterAFailedHeat: hot-gateway set up its restore
// only after its heat succeeded, so a heat whose answer was lost (applied on
// the gateway, the POST failed) left eu-1 burning 4 times the CPU for the
// scenarios after it. The restore now comes first, as in noisy-tenant. Here
// the plane never ticks and the gateways have exited (Settle waits for
// neither), and the gateway's answer to the heat is a 500.
// Found by a review.
func TestHotGatewayRestoresAfterAFailedHeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var posts []control.Request
		h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method != http.MethodPost || req.URL.Path != "/control/" {
				http.NotFound(w, req)
				return
			}
			var r control.Request
			if !assert.NoError(t, json.NewDecoder(req.Body).Decode(&r)) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			posts = append(posts, r)
			if len(posts) == 1 { // the heat is applied, its answer lost
				http.Error(w, `{"error": "lost"}`, http.StatusInternalServerError)
			}
		})
		spec := Spec{Regions: []string{"eu"}, Tenants: 1}.withDefaults()
		c := &Cluster{Spec: spec, Tenants: []string{"t00"}, hc: &http.Client{Transport: handlerTransport{h}}}
		var cfg controlplane.Config
		cfg.Regions = []controlplane.Region{{Name: "eu"}}
		for _, id := range []string{"eu-1", "eu-2"} {
			p := &proc{name: id, done: make(chan struct{})}
			close(p.done)
			g := &gatewayProc{proc: p, ID: id, Region: "eu", RESP: id + ":1", HTTP: id + ":2"}
			c.Gateways = append(c.Gateways, g)
			cfg.Gateways = append(cfg.Gateways, controlplane.Gateway{ID: id, Region: "eu", RESP: g.RESP, HTTP: g.HTTP, Cores: spec.Cores})
		}
		var err error
		c.Plane, err = controlplane.New(cfg) // never run: no tick
		require.NoError(t, err)
		c.Load, err = NewLoad(c.loadSpec())
		require.NoError(t, err)
		defer func() { assert.NoError(t, c.Load.Close()) }()

		err = hotGateway(t.Context(), c, &Report{Name: "hot-gateway"})
		require.ErrorContains(t, err, "500")
		mu.Lock()
		defer mu.Unlock()
		require.Len(t, posts, 2, "the failed heat, then the restore")
		assert.Equal(t, "hot-gateway: restore", posts[1].Why)
		require.Len(t, posts[1].Changes, 1)
		assert.Equal(t, "chaos.burn_us", posts[1].Changes[0].Knob)
		assert.Equal(t, control.Int(int64(spec.Burn)).String(), posts[1].Changes[0].Value.String())
	})
}
