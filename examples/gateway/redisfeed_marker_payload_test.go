package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMarkerWithoutCutIsNoCheckpoint: a message on the marker channel whose
// payload is not a cut (another client's PUBLISH on the channel, which
// PUBSUB CHANNELS names to anyone) vouches for nothing. Before, it was a
// checkpoint as of its arrival: it proves only that the changes before its
// PUBLISH were delivered, and a feed that lags its shard receives it after
// changes that ran since and whose notifications are still on their way,
// so the cache served values older than the bound by that lag.
func TestMarkerWithoutCutIsNoCheckpoint(t *testing.T) {
	ct, err := newCacheTier(1, 100, time.Second)
	require.NoError(t, err)
	defer ct.Close()
	const marker = markerPrefix + "test"
	c := ct.caches[0].Load()
	ct.checkpointed(0, 1, []byte(marker), []byte("hello"), marker)
	assert.Zero(t, c.Stats().Checkpoints, "a payload that is no cut made a checkpoint")
	ct.checkpointed(0, 2, []byte(marker), []byte(markerPayload(time.Now())), marker)
	assert.Equal(t, uint64(1), c.Stats().Checkpoints, "the gateway's own marker checkpoints")
}
