package cache_test

import (
	"testing"
	"testing/synctest"
)

// TestAdaptersLeaveNoGoroutine: every cache of the comparison, made and
// closed with closeKV, leaves no goroutine behind (synctest fails the test on
// one that stays blocked), so one library's background work cannot run into
// the next one's measurement.
func TestAdaptersLeaveNoGoroutine(t *testing.T) {
	for _, im := range append(hitRatioImpls, throughputImpls...) {
		t.Run(im.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := im.make(16)
				for k := range uint64(64) {
					if _, ok := c.Get(k); !ok {
						c.Set(k, k)
					}
				}
				closeKV(c)
			})
		})
	}
}
