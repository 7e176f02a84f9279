package main

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestForgedMarkerIsNoCheckpoint: another client's PUBLISH on the marker
// channel (PUBSUB CHANNELS names it; SUBSCRIBE shows its payloads) whose
// payload reads as a cut vouches for nothing unless this process made it.
// Before, any decimal number was taken for a cut: one at or past the
// message's arrival made it a checkpoint as of that arrival, vouching for
// the changes still on their way to a feed that lags (as a payload that was
// no number did before TestMarkerWithoutCutIsNoCheckpoint).
func TestForgedMarkerIsNoCheckpoint(t *testing.T) {
	ct, err := newCacheTier(1, 100, time.Second)
	require.NoError(t, err)
	defer ct.Close()
	const marker = markerPrefix + "test"
	c := ct.caches[0].Load()
	seen := markerPayload(time.Now()) // a payload of this gateway's, as a subscriber of the channel sees it
	for i, p := range []string{"9223372036854775807", "1" + seen, laterCut(t, seen)} {
		ct.checkpointed(0, uint64(i+1), []byte(marker), []byte(p), marker)
		assert.Zero(t, c.Stats().Checkpoints, "payload %q (seen %q) made a checkpoint", p, seen)
	}
	// A payload of this gateway's, replayed by another client, is a
	// checkpoint still, and a safe one: its cut comes before the PUBLISH
	// that first carried it, so before the replay's.
	ct.checkpointed(0, 9, []byte(marker), []byte(seen), marker)
	assert.Equal(t, uint64(1), c.Stats().Checkpoints, "the gateway's own marker checkpoints")
}

// laterCut returns payload with its leading number, the cut, moved 10 s
// later: what another client that saw payload would publish.
func laterCut(t *testing.T, payload string) string {
	i := 0
	for i < len(payload) && (payload[i] == '-' || payload[i] >= '0' && payload[i] <= '9') {
		i++
	}
	ns, err := strconv.ParseInt(payload[:i], 10, 64)
	require.NoError(t, err)
	return strconv.FormatInt(ns+int64(10*time.Second), 10) + payload[i:]
}
