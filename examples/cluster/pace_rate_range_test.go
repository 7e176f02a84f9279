package main

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestPaceRateRange: a stream's interval is 1 s / rate in nanoseconds. A
// rate below about 1e-10/s overflowed int64 into a negative interval, and
// pace then sent tokens as fast as the workers took them (an unpaced flood
// for the slowest rate asked for); a rate above 1e9/s rounded to 0, the
// value that means paused. A positive rate now always paces: a tiny one as
// good as never, a huge one as fast as the workers go.
func TestPaceRateRange(t *testing.T) {
	tokensIn := func(rate float64, d time.Duration) int {
		n := 0
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := &stream{}
			s.setRate(rate)
			tokens := make(chan struct{})
			go s.pace(ctx, tokens)
			end := time.After(d)
			for n < 1000 {
				select {
				case <-tokens:
					n++
					continue
				case <-end:
				}
				break
			}
		})
		return n
	}
	assert.Equal(t, 10, tokensIn(10, time.Second+time.Millisecond), "10/s for a second")
	assert.LessOrEqual(t, tokensIn(1e-11, time.Second), 1, "a rate of one request in 3,000 years sends at most one")
	assert.Equal(t, 1000, tokensIn(1e12, time.Second), "a huge rate is not a pause")
}
