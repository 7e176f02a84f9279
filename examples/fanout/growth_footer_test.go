package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGrowthFooterStatesTheFanIn: with shard affinity the growth table's
// closing line said gateway fan-in "stays regions x shard density", 20 x 250
// = 5,000 for the article's fleet, where the table beside it shows 4,607: a
// host's fan-in is regions x the expected number of distinct proxies of a
// region owning its replicas (x the backend pool), as the README says. The
// line must name that and give the product the table shows.
func TestGrowthFooterStatesTheFanIn(t *testing.T) {
	pooled := articleFleet()
	pooled.BackendPool = 2
	for _, c := range []struct {
		f    Fleet
		want string
	}{
		{articleFleet(), "gateway fan-in stays regions x the expected number of a region's proxies owning a host's replicas (20 x 230.35 = 4,607 at density 250; operator-owned)."},
		{pooled, "gateway fan-in stays regions x the expected number of a region's proxies owning a host's replicas x backend pool (20 x 230.35 x 2 = 9,214 at density 250; operator-owned)."},
	} {
		var out bytes.Buffer
		require.NoError(t, report(&out, c.f, 19))
		text := strings.Join(strings.Fields(out.String()), " ") // the line may wrap
		assert.NotContains(t, text, "regions x shard density")
		assert.Contains(t, text, c.want)
		assert.Contains(t, text, " "+num(gateway(c.f).DBFanIn)+" ", "the table's gateway db fan-in")
	}
	pooled.AnyProxyRoutes = true
	var out bytes.Buffer
	require.NoError(t, report(&out, pooled, 19))
	assert.Contains(t, out.String(), "gateway fan-in stays the proxy count x backend pool (no shard affinity).")
}
