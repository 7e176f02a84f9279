package controlplane_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/rollout"
)

// Follow applied a document of any epoch other than the one in force, older
// ones too: with two plane processes answering one URL (the old one still up
// during a restart behind a load balancer), a follower flipped between their
// routes at every answer. Documents are now ordered by (epoch, version): a
// higher epoch (a later plane) or a higher version of the same epoch applies;
// an older epoch is ignored.
func TestFollowIgnoresOlderEpoch(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	doc := func(epoch int64, version uint64, percent float64) []byte {
		require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: percent}}}))
		d := partialOf(t, wireOf(t, p), "epoch", strconv.FormatInt(epoch, 10))
		return partialOf(t, d, "version", strconv.FormatUint(version, 10))
	}
	// What the server answers, in order, and the rollout percent in force after
	// each answer.
	steps := []struct {
		doc  []byte
		want float64
	}{
		{doc(200, 3, 10), 10}, // the new plane
		{doc(100, 9, 90), 10}, // the old plane, still answering
		{doc(200, 4, 20), 20}, // the new plane's next version
		{doc(100, 10, 90), 20},
		{doc(200, 2, 30), 20}, // a stale answer of the new plane
		{doc(300, 1, 40), 40}, // a later restart
		{doc(200, 5, 90), 40},
	}
	docs := make([][]byte, len(steps))
	for i, s := range steps {
		docs[i] = s.doc
	}
	got := make([]float64, len(steps)) // the percent in force after each answer
	c := followAnswers(t, docs, func(i int, c *client.Client) {
		got[i] = -1
		if rr, ok := c.Routes(); ok {
			got[i] = rr.Rollout.Config().Rules[0].Percent
		}
	})
	for i, s := range steps {
		require.Equal(t, s.want, got[i], "after answer %d", i)
	}
	require.Equal(t, uint64(3), c.Stats().Swaps)
}
