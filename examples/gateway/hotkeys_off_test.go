package main

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestHotLingerOffEndsWaits: a hot key's fetch waiting for its readers when
// the linger is turned off (the knob at 0) goes at once. The GETs that
// arrive with the linger off are no longer counted, so nothing but the
// linger read when the wait began ended it: the readers the wait expected
// came and joined it, and every one of them stalled the whole linger (up to
// 5 ms; an hour here, set under the knob's bound, to tell the two apart).
func TestHotLingerOffEndsWaits(t *testing.T) {
	in := startGateway(t, Config{})
	ctx := context.Background()
	c := client(t, in, &redis.Options{PoolSize: 4*hotGets + 1, ReadTimeout: time.Minute})
	require.NoError(t, c.Set(ctx, "hot", "v", 0).Err())
	g := in.gw
	g.hot.linger.Store(int64(time.Hour))
	h := g.hot.hash("hot")
	for range 4 * hotGets { // "hot" had that many readers in its last cycle
		g.hot.arrived(h, nil)
	}
	g.hot.done(h)
	s := &g.hot.slots[h%hotSlots]
	t.Cleanup(func() { // before the shutdown, which waits for the GETs: a wait left posted goes
		if w := s.wake.Load(); w != nil && s.wake.CompareAndSwap(w, nil) {
			close(w.ch)
		}
	})
	var wg sync.WaitGroup
	get := func() { defer wg.Done(); assert.Equal(t, "v", c.Get(ctx, "hot").Val()) }
	wg.Add(1)
	go get() // its fetch waits for three quarters of them
	for deadline := time.Now().Add(10 * time.Second); s.wake.Load() == nil; runtime.Gosched() {
		require.True(t, time.Now().Before(deadline), "the fetch never waited")
	}
	_, err := in.reg.Apply(control.Request{Who: "test", Changes: []control.Change{
		{Knob: "gateway.hot_linger", Value: control.Duration(0)}}})
	require.NoError(t, err)
	for range 4 * hotGets { // the readers it waits for come
		wg.Add(1)
		go get()
	}
	went := make(chan struct{})
	go func() { wg.Wait(); close(went) }()
	select {
	case <-went:
	case <-time.After(10 * time.Second):
		t.Fatal("the wait outlived the linger's switch-off and its readers' arrival")
	}
	assert.Nil(t, s.wake.Load(), "no wait left posted")
	assert.Zero(t, g.hot.timedOut.Load(), "no wait ran out")
}
