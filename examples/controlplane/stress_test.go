package controlplane_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/rollout"
)

// noLeaks fails the test if goroutines started during it are still running at
// its end (after the other cleanups, which run first). It polls with a bounded
// deadline: exiting goroutines need a moment to be gone.
func noLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("goroutines: %d at start, %d at end:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// Ticks, reads (State, Routes, the HTTP API), membership changes, drains and
// rollout changes run concurrently. Invariants: every published weight is positive,
// versions never go back, and once a membership change returns, every publication
// holds exactly the gateways not removed, each in its region's ring.
func TestStress(t *testing.T) {
	noLeaks(t)
	ops := 400
	if v, _ := strconv.Atoi(os.Getenv("TIERKIT_LONG")); v > 0 {
		ops = 20_000
	}
	p, ft := twoRegions(t, 1.5)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var ticks atomic.Int64
	defer func() { stop.Store(true); wg.Wait() }() // also when the writer fails

	wg.Go(func() { // the control loop, on explicit time
		for k := 1; !stop.Load(); k++ {
			ft.advance(time.Second)
			assert.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
			ticks.Add(1)
		}
	})
	wg.Go(func() { // a second, wall-clock ticker: ticks serialize
		for !stop.Load() {
			assert.NoError(t, p.Tick(context.Background(), time.Now()))
			ticks.Add(1)
		}
	})
	for r := range 2 { // readers
		wg.Go(func() {
			var last uint64
			for i := 0; !stop.Load(); i++ {
				routes, v := p.Routes()
				assert.GreaterOrEqual(t, v, last, "version went back")
				last = v
				for region, ring := range routes.Gateways {
					for _, n := range ring.Nodes() {
						if n.Weight <= 0 {
							t.Errorf("region %s: weight %v of %s", region, n.Weight, n.ID)
						}
					}
				}
				st := p.State()
				assert.GreaterOrEqual(t, st.Version, v)
				if i%4 == r {
					resp, err := http.Get(srv.URL + "/api/routes")
					if assert.NoError(t, err) {
						data, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						_, hv, err := controlplane.DecodeRoutes(data)
						assert.NoError(t, err)
						assert.GreaterOrEqual(t, hv, v)
					}
				}
			}
		})
	}
	wg.Go(func() { // rollout changes
		for i := 0; !stop.Load(); i++ {
			assert.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: float64(i % 101)}}, Kill: i%7 == 0}))
		}
	})

	// The membership writer: the model is the set of gateway IDs it expects.
	rng := rand.New(rand.NewPCG(1, 2))
	model := map[string]controlplane.Gateway{}
	for _, g := range p.Gateways() {
		model[g.ID] = g
	}
	for i := range ops {
		switch op := rng.IntN(4); {
		case op == 0 || len(model) < 2:
			g := gw([]string{"eu", "us"}[rng.IntN(2)], 10+i, float64(1+rng.IntN(4)))
			g.RESP, g.HTTP = fmt.Sprintf("127.0.0.1:%d", 20000+i), fmt.Sprintf("127.0.0.1:%d", 40000+i) // never dialed
			ft.add(g, -1)
			require.NoError(t, p.AddGateway(g))
			model[g.ID] = g
		case op == 1:
			id := anyKey(rng, model)
			require.NoError(t, p.RemoveGateway(id))
			delete(model, id)
		case op == 2:
			require.NoError(t, p.Drain(anyKey(rng, model)))
		default:
			require.NoError(t, p.Undrain(anyKey(rng, model)))
		}
		checkMembership(t, p, model)
	}
	stop.Store(true)
	wg.Wait()
	checkMembership(t, p, model)
	assert.Positive(t, ticks.Load())
	t.Logf("%d ops, %d ticks, %d publications", ops, ticks.Load(), p.Stats().Publications)
}

func anyKey(rng *rand.Rand, m map[string]controlplane.Gateway) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys[rng.IntN(len(keys))]
}

// checkMembership asserts that each published ring holds exactly the model's
// gateways of its region.
func checkMembership(t *testing.T, p *controlplane.Plane, model map[string]controlplane.Gateway) {
	t.Helper()
	r, _ := p.Routes()
	want := map[string][]string{}
	for _, g := range model {
		want[g.Region] = append(want[g.Region], g.RESP)
	}
	for region, ids := range want {
		ring := r.Gateways[region]
		require.NotNil(t, ring, region)
		var got []string
		for _, n := range ring.Nodes() {
			got = append(got, n.ID)
		}
		slices.Sort(ids)
		require.Equal(t, ids, got, fmt.Sprintf("ring of %s", region))
	}
	for region := range r.Gateways {
		require.Contains(t, want, region, "a ring for a region without gateways")
	}
}
