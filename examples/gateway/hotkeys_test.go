package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestHotKeysWait: a fetch waits only when at least hotGets GETs of its key
// arrived since the key's previous fetch began; each fetch restarts the count;
// a key that takes another's slot starts from its own GETs; linger 0 turns it
// off.
func TestHotKeysWait(t *testing.T) {
	const linger = 100 * time.Microsecond
	type step struct {
		gets int    // GETs that arrive, then
		key  uint64 // a fetch of this key
		want time.Duration
	}
	a, b := uint64(1), uint64(1+hotSlots) // same slot
	tests := []struct {
		name   string
		linger time.Duration
		steps  []step
	}{
		{"cold key", linger, []step{{0, a, 0}, {1, a, 0}, {hotGets - 1, a, 0}}},
		{"hot key", linger, []step{{hotGets, a, linger}, {hotGets + 5, a, linger}}},
		{"count restarts at each fetch", linger, []step{{hotGets, a, linger}, {0, a, 0}, {1, a, 0}}},
		{"another key", linger, []step{{hotGets, a, linger}, {0, b, 0}}},
		{"off", 0, []step{{hotGets * 10, a, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newHotKeys(tt.linger)
			for i, s := range tt.steps {
				for range s.gets {
					k.arrived(s.key)
				}
				assert.Equal(t, s.want, k.wait(s.key), "step %d", i)
			}
		})
	}
	t.Run("slot taken by another key", func(t *testing.T) {
		k := newHotKeys(linger)
		for range hotGets {
			k.arrived(a)
		}
		k.arrived(b) // b's first GET takes the slot: a's count is gone
		assert.Zero(t, k.wait(a))
		for range hotGets - 1 {
			k.arrived(b)
		}
		assert.Equal(t, linger, k.wait(b))
	})
}

func TestHotLingerConfig(t *testing.T) {
	c, err := Config{}.withDefaults()
	require.NoError(t, err)
	assert.Zero(t, c.HotLinger, "off by default")
	c, err = Config{HotLinger: Duration(200 * time.Microsecond)}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, int64(200*time.Microsecond), newHotKeys(time.Duration(c.HotLinger)).linger.Load())
	for _, bad := range []Duration{-1, Duration(maxHotLinger + 1)} {
		_, err = Config{HotLinger: bad}.withDefaults()
		require.ErrorContains(t, err, "hot_linger")
	}
}

// TestHotLingerCutsFetches: 32 connections read one key in a loop on memkv
// with 300 us added to each backend call (the chaos knob). Without the
// linger a fetch is joined by the readers that happen to arrive while it is
// in flight; with a linger of 2 ms (set through the control knob) the
// fetches of the hot key wait for every reader, and the backend sees fewer.
func TestHotLingerCutsFetches(t *testing.T) {
	in := startGateway(t, Config{})
	ctx := context.Background()
	c := client(t, in, &redis.Options{PoolSize: 32})
	require.NoError(t, c.Set(ctx, "hot", "v", 0).Err())
	perGet := func() float64 {
		before := in.gw.n.backendCalls.Load()
		const clients, per = 32, 60
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for range per {
					assert.Equal(t, "v", c.Get(ctx, "hot").Val())
				}
			})
		}
		wg.Wait()
		return float64(in.gw.n.backendCalls.Load()-before) / (clients * per)
	}
	setLinger := func(d time.Duration) {
		_, err := in.reg.Apply(control.Request{Who: "test", Changes: []control.Change{
			{Knob: "gateway.hot_linger", Value: control.Duration(d)},
			{Knob: "chaos.delay_us", Value: control.Int(300)}}})
		require.NoError(t, err)
	}
	setLinger(0)
	off := perGet()
	setLinger(2 * time.Millisecond)
	on := perGet()
	t.Logf("backend calls per GET of a hot key: linger off %.3f, 2 ms %.3f", off, on)
	assert.Less(t, on, off*0.8, "the linger gathers more readers per fetch")
}
