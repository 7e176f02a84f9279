package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// Follow applied any document whose (epoch, version) differed from the one in
// force, so a stale answer of the same plane (an older version, from a cache or
// a lagging replica of the URL) rolled the client back to routes the plane had
// replaced. Only a newer version, or another epoch (a restarted plane), applies.
func TestFollowKeepsNewerVersion(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	v1 := wireOf(t, p)
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}}))
	v2 := wireOf(t, p)

	c := followAnswers(t, [][]byte{v2, v1}, nil) // v1: stale, the version before v2
	r, ok := c.Routes()
	require.True(t, ok)
	require.Len(t, r.Rollout.Config().Rules, 1, "version 2's rollout was replaced by version 1's")
	require.Equal(t, uint64(1), c.Stats().Swaps)
}
