package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/tierkit/tierkit/hashring"
)

func init() {
	sections = append(sections, section{
		order: 30,
		name:  "hashring",
		title: "weighted consistent hashing: exact shares, minimal movement, bounded load",
		run:   tourHashring,
	})
}

// tourHashKeys is the number of real keys the section routes to measure shares and
// movement (hashed once, routed through every ring).
const tourHashKeys = 300_000

func tourHashring(w io.Writer) error {
	// 100 gateway hosts of 26 to 126 cores, weight = cores.
	rng := rand.New(rand.NewPCG(26, 126))
	hosts := make([]hashring.Node, 100)
	for i := range hosts {
		hosts[i] = hashring.Node{ID: fmt.Sprintf("gw-%03d", i), Weight: float64(26 + rng.IntN(101))}
	}
	start := time.Now()
	ring, err := hashring.New(hashring.Config{}, hosts)
	if err != nil {
		return err
	}
	built := time.Since(start)
	var current atomic.Pointer[hashring.Ring] // how a router publishes rings
	current.Store(ring)

	keys := make([]uint64, tourHashKeys)
	for i := range keys {
		keys[i] = xxhash.Sum64String("user:" + strconv.Itoa(i))
	}
	route := func(r *hashring.Ring) ([]string, error) { return routeKeys(r, keys) }
	before, err := route(current.Load())
	if err != nil {
		return err
	}
	st := ring.Stats()
	fmt.Fprintf(w, "   100 hosts of 26-126 cores, ring built in %v: max share / expected = %.4f (exact, from the slot table)\n",
		built.Round(time.Microsecond), st.MaxShareRatio)
	sigmas := noiseSigmas(before, hosts)
	if err := verify(hashringNoiseClaims(sigmas)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   on %d real keys: max keys / expected = %.3f, every host within %.1f sigma of its weight's expected count:\n"+
		"   sampling noise (a perfect random placement of as many keys shows %.3f)\n",
		len(keys), worstOverExpected(before, hosts), sigmas, perfectPlacement(hosts, len(keys), rng))

	// The biggest host leaves; a router swaps the ring atomically.
	gone := hosts[0]
	for _, h := range hosts {
		if h.Weight > gone.Weight {
			gone = h
		}
	}
	next, err := current.Load().Remove(gone.ID)
	if err != nil {
		return err
	}
	current.Store(next)
	after, err := route(current.Load())
	if err != nil {
		return err
	}
	if err := tourRemoved(w, gone, before, after, st.TotalWeight, next.Stats()); err != nil {
		return err
	}

	// The control plane halves a hot host's weight.
	rw, err := tourReweight(w, next, hosts[1], keys, after)
	if err != nil {
		return err
	}
	return tourBoundedLoad(w, rw)
}

// tourRemoved prints the share of keys that moved when gone left the ring,
// comparing where each key routed before and after, and checks that every
// moved key was one gone owned.
func tourRemoved(w io.Writer, gone hashring.Node, before, after []string, total float64, ns hashring.Stats) error {
	moved, notGone := 0, 0
	for i := range before {
		if before[i] != after[i] {
			moved++
			if before[i] != gone.ID {
				notGone++
			}
		}
	}
	if err := verify(hashringRemoveClaims(gone.ID, notGone)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   %s (%v cores) leaves: %.3f%% of keys move (optimum %.3f%%; exact from the table %.3f%%); every moved key was on %s: %v\n",
		gone.ID, gone.Weight, 100*float64(moved)/float64(len(before)), 100*gone.Weight/total, 100*ns.MovedShare, gone.ID, notGone == 0)
	return nil
}

// hashringRemoveClaims is what the removal line states: every key that
// moved when gone left was on gone (notGone is how many were not).
func hashringRemoveClaims(gone string, notGone int) []claim {
	return []claim{{notGone == 0, fmt.Sprintf("every moved key was on %s, not %d moved from other hosts", gone, notGone)}}
}

// hashringNoiseSigmas bounds what the real-keys line calls sampling noise.
// Under a perfect random placement of k keys a host's count is binomial,
// k p keys give or take sigma = sqrt(k p (1-p)) (p its weight's share); one
// of 100 hosts is more than 4.5 sigma off about once in 1,500 placements.
// A ring whose hosts all fall within it shows what random placement would;
// one that favours or starves a host by more is not noise.
const hashringNoiseSigmas = 4.5

// hashringNoiseClaims is what the real-keys line states: the gap between
// its max keys / expected and 1 is sampling noise, every host's count within
// hashringNoiseSigmas standard deviations of its weight's expected count
// (sigmas is the largest deviation, from noiseSigmas).
func hashringNoiseClaims(sigmas float64) []claim {
	return []claim{{sigmas <= hashringNoiseSigmas,
		fmt.Sprintf("every host's key count within %.1f sigma of its weight's expected count (sampling noise), not %.1f sigma off", hashringNoiseSigmas, sigmas)}}
}

// hashringBoundClaims is what the bounded-load line states: no host holds
// more than its bound (worst is the fullest host's load over its bound).
func hashringBoundClaims(worst float64) []claim {
	return []claim{{worst <= 1, fmt.Sprintf("fullest host never above 1 of its bound, not %.3f", worst)}}
}

// tourReweight halves hot's weight in r and prints the share of keys that move,
// comparing where keys routes now with before, where they routed through r.
func tourReweight(w io.Writer, r *hashring.Ring, hot hashring.Node, keys []uint64, before []string) (*hashring.Ring, error) {
	rw, err := r.Reweight(hot.ID, hot.Weight/2)
	if err != nil {
		return nil, err
	}
	after, err := routeKeys(rw, keys)
	if err != nil {
		return nil, err
	}
	moved := 0
	for i := range before {
		if before[i] != after[i] {
			moved++
		}
	}
	rs := rw.Stats()
	fmt.Fprintf(w, "   %s reweighted %v -> %v: %.3f%% of keys move (optimum %.3f%%)\n",
		hot.ID, hot.Weight, hot.Weight/2, 100*float64(moved)/float64(len(keys)), 100*rs.OptimalMovedShare)
	return rw, nil
}

// routeKeys returns the host r routes each key hash to.
func routeKeys(r *hashring.Ring, keys []uint64) ([]string, error) {
	out := make([]string, len(keys))
	for i, h := range keys {
		id, err := r.LookupHash(h)
		if err != nil {
			return nil, err
		}
		out[i] = id
	}
	return out, nil
}

// tourBoundedLoad sends a burst in which one hot key is half the traffic and shows
// that bounded-load lookups keep every host under ceil(1.25 x its weighted average).
func tourBoundedLoad(w io.Writer, r *hashring.Ring) error {
	var loads hashring.Loads
	const burst = 20_000
	owner, err := r.Lookup("hot-key")
	if err != nil {
		return err
	}
	spilled := 0
	for i := range burst {
		key := "hot-key"
		if i%2 == 1 {
			key = "k" + strconv.Itoa(i)
		}
		id, err := r.LookupBounded(key, 1.25, &loads)
		if err != nil {
			return err
		}
		if key == "hot-key" && id != owner {
			spilled++
		}
		loads.Acquire(id) // all requests stay in flight: the worst case
	}
	worst := 0.0
	for _, n := range r.Nodes() {
		bound := math.Ceil(1.25 * burst * n.Weight / r.Stats().TotalWeight)
		worst = math.Max(worst, float64(loads.Load(n.ID))/bound)
	}
	if err := verify(hashringBoundClaims(worst)...); err != nil {
		return err
	}
	ownerShare := float64(loads.Load(owner)) / burst
	fmt.Fprintf(w, "   %d in-flight requests, half on one hot key: its owner holds %.2f%% of them, %d hot requests spilled to other hosts;\n",
		burst, 100*ownerShare, spilled)
	fmt.Fprintf(w, "   fullest host at %.3f of its bound ceil(1.25 x weighted average) (never above 1)\n", worst)
	return nil
}

// perfectPlacement returns max over hosts of keys owned / keys expected when k keys
// are placed independently at random with probability proportional to weight.
func perfectPlacement(hosts []hashring.Node, k int, rng *rand.Rand) float64 {
	cum := make([]float64, len(hosts))
	total := 0.0
	for i, h := range hosts {
		total += h.Weight
		cum[i] = total
	}
	owners := make([]string, k)
	for i := range owners {
		j, _ := slices.BinarySearch(cum, rng.Float64()*total)
		owners[i] = hosts[min(j, len(hosts)-1)].ID
	}
	return worstOverExpected(owners, hosts)
}

// worstOverExpected returns max over hosts of keys owned / keys expected by weight.
func worstOverExpected(owners []string, hosts []hashring.Node) float64 {
	counts := map[string]int{}
	for _, o := range owners {
		counts[o]++
	}
	total := 0.0
	for _, h := range hosts {
		total += h.Weight
	}
	worst := 0.0
	for _, h := range hosts {
		worst = math.Max(worst, float64(counts[h.ID])/(float64(len(owners))*h.Weight/total))
	}
	return worst
}

// noiseSigmas returns max over hosts of |keys owned - expected| / sigma, where
// expected = k p and sigma = sqrt(k p (1-p)) are those of the host's count
// when the k = len(owners) keys are placed independently at random with
// probability p = its weight's share (a binomial count).
func noiseSigmas(owners []string, hosts []hashring.Node) float64 {
	counts := map[string]int{}
	for _, o := range owners {
		counts[o]++
	}
	total := 0.0
	for _, h := range hosts {
		total += h.Weight
	}
	k := float64(len(owners))
	worst := 0.0
	for _, h := range hosts {
		p := h.Weight / total
		worst = math.Max(worst, math.Abs(float64(counts[h.ID])-k*p)/math.Sqrt(k*p*(1-p)))
	}
	return worst
}
