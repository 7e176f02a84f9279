package control_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestStressConcurrentChanges runs writers (batches, some failing, dry runs,
// rollbacks) against readers. Invariants: a component's setting always equals
// the registry's value once no change is in flight; readers never see a batch
// half applied (paired knobs are changed together); the audit log chains.
func TestStressConcurrentChanges(t *testing.T) {
	ops := 20_000
	if os.Getenv("TIERKIT_LONG") == "1" {
		ops = 1_000_000
	}
	reg, err := control.New(control.Config{AuditSize: 512})
	require.NoError(t, err)
	const knobs = 8
	var live [knobs]atomic.Int64
	for i := range knobs {
		require.NoError(t, reg.RegisterInt(control.IntKnob{Name: fmt.Sprintf("k%d", i), Min: 0, Max: 1 << 20,
			Apply: func(v int64) error {
				if v%97 == 13 { // the component refuses some values
					return fmt.Errorf("refused %d", v)
				}
				live[i].Store(v)
				return nil
			}}))
	}

	var wg sync.WaitGroup
	var torn atomic.Int64
	for r := range 2 { // readers: k0 and k1 are always set together, to the same value
		wg.Go(func() {
			for i := range ops / 4 {
				var a, b int64
				for _, in := range reg.Knobs() {
					switch in.Name {
					case "k0":
						a = in.Value.Int()
					case "k1":
						b = in.Value.Int()
					}
				}
				if a != b {
					torn.Add(1)
				}
				if i%200 == r {
					_ = reg.Audit()
				}
				_ = reg.Stats()
			}
		})
	}
	const writers = 4
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range ops / writers {
				v := rng.Int64N(1 << 20)
				req := control.Request{Who: fmt.Sprintf("w%d", w), Why: fmt.Sprint(i)}
				switch rng.IntN(10) {
				case 0:
					_, _ = reg.Rollback(req.Who, "stress")
					continue
				case 1:
					req.DryRun = true
				}
				if rng.IntN(2) == 0 {
					req.Changes = []control.Change{{Knob: "k0", Value: control.Int(v)}, {Knob: "k1", Value: control.Int(v)}}
				} else {
					k := 2 + rng.IntN(knobs-2)
					req.Changes = []control.Change{{Knob: fmt.Sprintf("k%d", k), Value: control.Int(v)}}
				}
				_, _ = reg.Apply(req)
			}
		})
	}
	wg.Wait()

	assert.Zero(t, torn.Load(), "a reader saw a batch half applied")
	checkAudit(t, reg)
	// Rollbacks of k0/k1 batches keep them paired too.
	for i := range knobs {
		v, err := reg.Get(fmt.Sprintf("k%d", i))
		require.NoError(t, err)
		assert.Equal(t, v.Int(), live[i].Load(), "k%d: component and registry agree", i)
	}
	s := reg.Stats()
	assert.Positive(t, s.ApplyFailed)
	assert.Positive(t, s.Rollbacks)
	assert.Equal(t, uint64(ops), s.Requests)
	t.Logf("stats: %+v", s)
}
