package controlplane_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRolloutAnswersItsOwnChange: POST /api/rollout answered the plane's
// rollout read after its change was made and the lock released, so under
// concurrent changes it could answer another request's rollout as if it were
// its own. It answers the rollout its change put in force. Concurrent POSTs,
// each with a percent of its own, must each get their own percent back.
func TestRolloutAnswersItsOwnChange(t *testing.T) {
	p, _ := twoRegions(t, 1)
	h := p.Handler()
	const workers, rounds = 4, 250
	var wg sync.WaitGroup
	errs := make(chan string, workers*rounds)
	for w := range workers {
		wg.Go(func() {
			for i := range rounds {
				pct := float64(w*rounds+i) / 10
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, postJSON("/api/rollout", fmt.Sprintf(`{"Rules": [{"Service": "app", "Percent": %g}]}`, pct)))
				var got struct{ Rules []struct{ Percent float64 } }
				if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &got) != nil || len(got.Rules) != 1 {
					errs <- fmt.Sprintf("percent %g: %d %s", pct, rec.Code, rec.Body.String())
					continue
				}
				if got.Rules[0].Percent != pct {
					errs <- fmt.Sprintf("sent percent %g, answered %g", pct, got.Rules[0].Percent)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	var bad []string
	for e := range errs {
		bad = append(bad, e)
	}
	assert.Empty(t, bad, "%d of %d answers were another request's rollout", len(bad), workers*rounds)
}
