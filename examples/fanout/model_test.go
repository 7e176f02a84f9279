package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func articleFleet() Fleet {
	return Fleet{Regions: 20, DBHosts: 500_000, Proxies: 30_000, Clients: 1_000_000,
		ShardsPerCli: 50_000, ShardDensity: 250, ClientPool: 2, BackendPool: 1}
}

func TestDistinctMatchesClosedForm(t *testing.T) {
	tests := []struct {
		h, b, want float64
	}{
		{h: 1, b: 5, want: 1},
		{h: 2, b: 1, want: 1},
		{h: 2, b: 2, want: 1.5},     // 2(1-1/4)
		{h: 10, b: 3, want: 2.71},   // 10(1-0.9^3)
		{h: 500_000, b: 0, want: 0}, // no balls, no bins
		{h: 500_000, b: 50_000, want: 500_000 * (1 - math.Exp(-0.1))}, // Poisson limit, 1e-6 relative
	}
	for _, tt := range tests {
		assert.InEpsilon(t, tt.want+1e-12, distinct(tt.h, tt.b)+1e-12, 1e-5, "h=%v b=%v", tt.h, tt.b)
	}
}

// TestDistinctMatchesSimulation throws balls for real and checks the expectation.
func TestDistinctMatchesSimulation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const h, b, trials = 1000, 700, 200
	var sum int
	for range trials {
		seen := make(map[int]bool, b)
		for range b {
			seen[r.IntN(h)] = true
		}
		sum += len(seen)
	}
	assert.InEpsilon(t, distinct(h, b), float64(sum)/trials, 0.01)
}

func TestArticleFleet(t *testing.T) {
	f := articleFleet()
	d, g := direct(f), gateway(f)
	// Direct: 500k(1-(1-1/500k)^50k) ~ 47.6k hosts per client; fan-in C*p ~ 95k.
	assert.InDelta(t, 47_581, d.ClientFanOut, 1)
	assert.InDelta(t, 95_163, d.DBFanIn, 1)
	// Gateway fan-in is regions x distinct owners of a host's 250 replicas among 1,500 proxies.
	assert.InDelta(t, 20*1500*(1-math.Pow(1-1.0/1500, 250)), g.DBFanIn, 1e-6)
	assert.InDelta(t, d.Total/g.Total, reduction(f), 1e-9)
	// Connection conservation: what proxies open, database hosts accept.
	assert.InEpsilon(t, g.ProxyFanOut*float64(f.Proxies), g.DBFanIn*float64(f.DBHosts), 1e-12)
	assert.InEpsilon(t, g.ProxyFanIn*float64(f.Proxies), float64(f.Clients*f.ClientPool), 1e-12)
}

func TestGatewayFanInIndependentOfClients(t *testing.T) {
	f := articleFleet()
	before := gateway(f).DBFanIn
	f.Clients *= 10
	assert.Equal(t, before, gateway(f).DBFanIn)
	assert.InEpsilon(t, 10*direct(articleFleet()).DBFanIn, direct(f).DBFanIn, 1e-12)
}

func TestNoAffinityCostsMostOfTheWin(t *testing.T) {
	f := articleFleet()
	f.AnyProxyRoutes = true
	assert.Equal(t, float64(f.Proxies), gateway(f).DBFanIn, "every proxy of every region reaches each host")
	assert.Less(t, reduction(f), 4.0)
}

func TestSolveDensityReproducesTarget(t *testing.T) {
	f := articleFleet()
	s, ok := solveDensity(f, 19, 1e-3, 1e7)
	require.True(t, ok)
	f.ShardDensity = s
	assert.InDelta(t, 19, reduction(f), 1e-6)
	assert.InDelta(t, 274, s, 1)

	_, ok = solveDensity(articleFleet(), 1e9, 1e-3, 1e7)
	assert.False(t, ok, "a reduction no density gives is reported, not invented")
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Fleet)
	}{
		{"no regions", func(f *Fleet) { f.Regions = 0 }},
		{"fewer proxies than regions", func(f *Fleet) { f.Proxies = 5 }},
		{"zero density", func(f *Fleet) { f.ShardDensity = 0 }},
		{"NaN density", func(f *Fleet) { f.ShardDensity = math.NaN() }},
		{"zero pool", func(f *Fleet) { f.ClientPool = 0 }},
		{"no clients", func(f *Fleet) { f.Clients = 0 }},
		// the growth table's 10x row wrapped to a negative count (found by a review)
		{"clients past MaxInt/10", func(f *Fleet) { f.Clients = math.MaxInt/10 + 1 }},
	}
	for _, tt := range tests {
		f := articleFleet()
		tt.mod(&f)
		assert.ErrorIs(t, f.validate(), errFleet, tt.name)
	}
	assert.NoError(t, articleFleet().validate())
}

func TestReportPrintsBothSides(t *testing.T) {
	f, target, err := parseFlags(nil, &bytes.Buffer{})
	require.NoError(t, err)
	require.Equal(t, articleFleet(), f)
	var out bytes.Buffer
	require.NoError(t, report(&out, f, target))
	for _, want := range []string{"47,581", "95,163", "20.6x", "=> 19x at a density of 274", "951,627"} {
		assert.True(t, strings.Contains(out.String(), want), "output has %q:\n%s", want, out.String())
	}
	_, _, err = parseFlags([]string{"-regions", "x"}, &bytes.Buffer{})
	assert.Error(t, err)
	assert.ErrorIs(t, report(&out, Fleet{}, 19), errFleet)
}

// FuzzModel: for any fleet validate accepts, every figure is finite; a client
// reaches at least one host and at most min(hosts, shards), a host at most every
// client and every proxy's backend pool; the sides add up to the totals; and
// touching more shards (direct) or a higher shard density (gateway) never
// lowers a fan-out or fan-in, nor does giving up shard affinity.
func FuzzModel(f *testing.F) {
	f.Add(20, 500_000, 30_000, 1_000_000, 50_000, 250.0, 2, 1, false)
	f.Add(1, 1, 1, 1, 1, 1.0, 1, 1, true)
	f.Add(3, 7, 5, 2, 3, 0.25, 1, 3, false)
	f.Fuzz(func(t *testing.T, regions, hosts, proxies, clients, shards int, density float64, cp, bp int, anyProxy bool) {
		fl := Fleet{regions, hosts, proxies, clients, shards, density, cp, bp, anyProxy}
		if fl.validate() != nil {
			return
		}
		d, g := direct(fl), gateway(fl)
		if d.ClientFanOut > float64(hosts)+1e-6 || d.ClientFanOut > float64(shards)+1e-6 || d.ClientFanOut < 1-1e-9 {
			t.Fatalf("client fan-out %v outside [1, min(hosts, shards)]", d.ClientFanOut)
		}
		if g.DBFanIn < 0 || g.DBFanIn > float64(proxies)*float64(bp)*(1+1e-9) {
			t.Fatalf("db fan-in %v outside [0, proxies x backend pool]", g.DBFanIn)
		}
		checkFinite(t, d, g)
		if !(d.HitProb > 0 && d.HitProb <= 1+1e-12) || d.DBFanIn > float64(clients)*(1+1e-12) {
			t.Fatalf("direct: hit probability %v, db fan-in %v of %d clients", d.HitProb, d.DBFanIn, clients)
		}
		if !near(g.Total, g.ClientSide+g.BackendSide) || !near(g.ProxyFanIn*float64(proxies), g.ClientSide) ||
			!near(g.ProxyFanOut*float64(proxies), g.BackendSide) || !near(d.Total, float64(clients)*d.ClientFanOut) {
			t.Fatalf("sides do not add up: direct %+v, gateway %+v", d, g)
		}
		more := fl
		more.ShardsPerCli = shards + min(shards, math.MaxInt-shards)
		more.ShardDensity = density * 2
		if more.validate() == nil {
			if dm, gm := direct(more), gateway(more); dm.ClientFanOut < d.ClientFanOut*(1-1e-12) || gm.DBFanIn < g.DBFanIn*(1-1e-12) {
				t.Fatalf("more shards or density lowered a fan: client %v -> %v, db %v -> %v",
					d.ClientFanOut, dm.ClientFanOut, g.DBFanIn, gm.DBFanIn)
			}
		}
		fl.AnyProxyRoutes = true
		if spread := gateway(fl); spread.DBFanIn < g.DBFanIn*(1-1e-12) {
			t.Fatalf("without affinity the db fan-in fell: %v -> %v", g.DBFanIn, spread.DBFanIn)
		}
	})
}

// checkFinite fails t if a figure of d or g is NaN, infinite or negative.
func checkFinite(t *testing.T, d Direct, g Gateway) {
	t.Helper()
	for _, x := range []float64{d.ClientFanOut, d.HitProb, d.DBFanIn, d.Total, g.ClientFanOut, g.ProxyFanIn,
		g.ProxyFanOut, g.DBFanIn, g.ClientSide, g.BackendSide, g.Total, g.ProxiesRegion} {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			t.Fatalf("a figure is %v: direct %+v, gateway %+v", x, d, g)
		}
	}
}

// near reports whether a and b agree to within float64 rounding.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestGrowthFooterWithoutAffinity: without shard affinity the gateway's fan-in
// is every proxy of every region, so the growth table's closing line must not
// claim it stays regions x the proxies owning a host's replicas.
func TestGrowthFooterWithoutAffinity(t *testing.T) {
	f := articleFleet()
	f.AnyProxyRoutes = true
	var out bytes.Buffer
	require.NoError(t, report(&out, f, 19))
	assert.NotContains(t, out.String(), "stays regions x")
	assert.Contains(t, out.String(), "gateway fan-in stays the proxy count")

	out.Reset()
	require.NoError(t, report(&out, articleFleet(), 19))
	assert.Contains(t, out.String(), "gateway fan-in stays regions x the expected number of a region's proxies")
}
