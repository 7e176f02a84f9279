package rollout_test

import (
	"sync"
	"testing"

	"github.com/tierkit/tierkit/rollout"
)

// SetConfig once stored the Config and the compiled table with two separate
// atomic stores, so two concurrent SetConfig calls could leave Config()
// reporting one configuration while Decide and Stats used the other; both now
// live behind one pointer, swapped once.
func TestConcurrentSetConfigConsistent(t *testing.T) {
	rules := []rollout.Rule{{Service: "s", Percent: 100}}
	f, err := rollout.New(rollout.Config{Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50_000 {
		var wg sync.WaitGroup
		for _, kill := range []bool{false, true} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := f.SetConfig(rollout.Config{Rules: rules, Kill: kill}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		cfgKill := f.Config().Kill
		decideKill := f.Decide(rollout.Query{Service: "s", Key: "k"}).Reason == rollout.ReasonKilled
		if cfgKill != decideKill {
			t.Fatalf("iteration %d: Config().Kill = %v but Decide killed = %v (Stats().Killed = %v)",
				i, cfgKill, decideKill, f.Stats().Killed)
		}
	}
}
