package cache

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadMostlyPhases asks whether sampling one hit in 64 (not 4) while
// hits come with no insert (sample.go) costs hit ratio in workloads that
// alternate read-only phases with phases that miss and insert: after a
// read-only phase the policy has seen fewer of its hits (its sketch's counts,
// its queues' order, the climber's samples), and decides the next evictions
// from that. One goroutine replays each workload read-through, under each
// shift and 8 seeds (key hash, admission jitter, the workload's draws), and
// the hit ratio counts the read-through requests only: a read-only request
// reads its key only if it is cached (Contains) and never stores it.
//
// The workloads: Zipf (s = 1.01, 2^18 keys) in 10 phases of 100,000
// read-through requests each followed by 50,000 read-only ones, the
// popularity steady, drifting by 2,000 ranks a phase (the hot keys of one
// phase are cold in the next), or jumping to a new hot set; and the shared
// traces with a read-only stretch of 50,000 requests, each a repeat of one
// of the last 512 requests, after every 20,000. It checks that a replay is
// deterministic and that the read-only phases ran sampled. Long (a few
// minutes): TIERKIT_LONG=1 only; the traces skip when absent.
//
//	TIERKIT_LONG=1 go test -run TestReadMostlyPhases -v -timeout 30m ./cache/
func TestReadMostlyPhases(t *testing.T) {
	if os.Getenv("TIERKIT_LONG") != "1" {
		t.Skip("long: set TIERKIT_LONG=1")
	}
	saved := readMostlyShift
	t.Cleanup(func() { readMostlyShift = saved })
	shifts := []uint32{sampleShiftOn, sampleShiftReadMostly}
	if v := os.Getenv("TIERKIT_READMOSTLY_SHIFTS"); v != "" {
		shifts = parseShifts(t, v)
	}
	traces := map[string][]uint64{}
	for _, name := range []string{"oltp.gz", "p3.gz", "loop.gz"} {
		if keys := optionalTrace(t, name); keys != nil {
			traces[name] = keys
		}
	}
	const seeds = 8
	results := map[string][][]phaseResult{} // workload -> seed -> shift
	var names []string
	for s := uint64(1); s <= seeds; s++ {
		seed := s * 0x9e3779b97f4a7c15
		for _, w := range phaseWorkloads(seed, traces) {
			if s == 1 {
				names = append(names, w.name)
			}
			row := make([]phaseResult, len(shifts))
			for i, sh := range shifts {
				readMostlyShift = sh
				row[i] = phaseReplay(w.keys, w.capa, seed)
				require.Greater(t, row[i].roSampled, float64(row[i].ro)/4, "%s seed %d shift %d: read-only reads sampled", w.name, s, sh)
			}
			if s == 1 && len(names) == 1 {
				require.Equal(t, row[len(shifts)-1], phaseReplay(w.keys, w.capa, seed), "%s: a replay repeats exactly", w.name)
			}
			results[w.name] = append(results[w.name], row)
		}
	}
	t.Logf("read-through hit ratio (%%) over %d seeds, shifts %v; diff = shift %d minus shift %d:\n%s",
		seeds, shifts, shifts[len(shifts)-1], shifts[0], phaseTable(names, shifts, results))
}

// phaseResult is what phaseReplay counts: read-through requests and their
// hits, read-only reads, and those of each made while the read-mostly
// sampling ran.
type phaseResult struct {
	rw, hits, rwSampled float64
	ro, roSampled       float64
}

// roFlag marks a read-only request in a workload's keys.
const roFlag = 1 << 63

type phaseWorkload struct {
	name string
	capa int
	keys []uint64
}

// phaseReplay replays keys through a cache of capacity entries whose key hash
// and admission jitter use seed. A request with roFlag reads its key if it is
// cached; any other reads through (look up; on a miss, store).
func phaseReplay(keys []uint64, capacity int, seed uint64) phaseResult {
	c, err := New[uint64, uint64](Config[uint64]{Capacity: capacity})
	if err != nil {
		panic(err)
	}
	c.salt = seed
	c.pol = policy[uint64]{}
	c.pol.init(capacity, seed)
	var r phaseResult
	for _, k := range keys {
		sampled := c.sampleShift.Load() == readMostlyShift && readMostlyShift != 0
		if k&roFlag != 0 {
			if k &^= roFlag; c.Contains(k) {
				c.TryGet(k)
				r.ro++
				if sampled {
					r.roSampled++
				}
			}
			continue
		}
		r.rw++
		if sampled {
			r.rwSampled++
		}
		if _, ok := c.TryGet(k); ok {
			r.hits++
		} else {
			c.Set(k, k)
		}
	}
	return r
}

// phaseWorkloads builds the workloads of one seed: three Zipf phase patterns
// at two capacities, and each trace present with read-only stretches.
func phaseWorkloads(seed uint64, traces map[string][]uint64) []phaseWorkload {
	const keyspace = 1 << 18
	steady := zipfPhases(seed, func(int, *rand.Rand) uint64 { return 0 })
	drift := zipfPhases(seed+1, func(p int, _ *rand.Rand) uint64 { return uint64(p) * 2000 })
	jump := zipfPhases(seed+2, func(_ int, r *rand.Rand) uint64 { return r.Uint64N(keyspace) })
	var ws []phaseWorkload
	for _, capa := range []int{1000, 10_000} {
		ws = append(ws,
			phaseWorkload{fmt.Sprintf("Zipf steady/%d", capa), capa, steady},
			phaseWorkload{fmt.Sprintf("Zipf drift/%d", capa), capa, drift},
			phaseWorkload{fmt.Sprintf("Zipf jump/%d", capa), capa, jump})
	}
	for _, tc := range []struct {
		trace, name string
		capa        int
	}{
		{"oltp.gz", "OLTP", 250}, {"oltp.gz", "OLTP", 2000},
		{"p3.gz", "P3", 25_000}, {"p3.gz", "P3", 100_000}, {"loop.gz", "loop", 512},
	} {
		if keys, ok := traces[tc.trace]; ok {
			name := fmt.Sprintf("%s+ro/%d", tc.name, tc.capa)
			ws = append(ws, phaseWorkload{name, tc.capa, withReadOnlyStretches(keys, seed)})
		}
	}
	return ws
}

// zipfPhases draws 10 phases over 2^18 keys: 100,000 read-through requests,
// then 50,000 read-only ones, from a Zipf distribution (s = 1.01) whose ranks
// are shifted by offset(phase) keys.
func zipfPhases(seed uint64, offset func(int, *rand.Rand) uint64) []uint64 {
	const keyspace, phases, rwLen, roLen = 1 << 18, 10, 100_000, 50_000
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	z := rand.NewZipf(r, 1.01, 1, keyspace-1)
	keys := make([]uint64, 0, phases*(rwLen+roLen))
	for p := range phases {
		off := offset(p, r)
		for range rwLen {
			keys = append(keys, (z.Uint64()+off)%keyspace)
		}
		for range roLen {
			keys = append(keys, (z.Uint64()+off)%keyspace|roFlag)
		}
	}
	return keys
}

// withReadOnlyStretches returns trace with, after every 20,000 requests, a
// stretch of 50,000 read-only requests, each a repeat of one of the last 512
// requests.
func withReadOnlyStretches(trace []uint64, seed uint64) []uint64 {
	const every, stretch, recent = 20_000, 50_000, 512
	r := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	keys := make([]uint64, 0, len(trace)*2)
	for i, k := range trace {
		keys = append(keys, k&^roFlag)
		if (i+1)%every == 0 {
			for range stretch {
				keys = append(keys, trace[i-r.IntN(recent)]|roFlag)
			}
		}
	}
	return keys
}

// optionalTrace reads a shared trace (seedTrace), or returns nil when it is
// absent.
func optionalTrace(t *testing.T, name string) []uint64 {
	if _, err := os.Stat("../../shared/traces/" + name); err != nil {
		t.Logf("trace %s absent: %v", name, err)
		return nil
	}
	return seedTrace(t, name)
}

// parseShifts reads a comma-separated list of shifts, the first the baseline.
func parseShifts(t *testing.T, v string) []uint32 {
	var shifts []uint32
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 5)
		require.NoError(t, err, "TIERKIT_READMOSTLY_SHIFTS")
		shifts = append(shifts, uint32(n))
	}
	require.GreaterOrEqual(t, len(shifts), 2, "TIERKIT_READMOSTLY_SHIFTS: a baseline and another shift")
	return shifts
}

// phaseTable formats, per workload, the mean hit ratio under each shift, and
// for each shift after the first its difference to the first: mean, standard
// deviation, lowest and highest over the seeds, and in how many seeds it is
// lower; then the share of read-only reads, and of read-through requests,
// made while the read-mostly sampling ran, under the last shift, and the
// read-only reads per read-through request.
func phaseTable(names []string, shifts []uint32, results map[string][][]phaseResult) string {
	var b strings.Builder
	b.WriteString("| workload |")
	for _, sh := range shifts {
		fmt.Fprintf(&b, " 1 in %d |", 1<<sh)
	}
	for _, sh := range shifts[1:] {
		fmt.Fprintf(&b, " diff 1 in %d: mean (sd) [lowest, highest] lower in |", 1<<sh)
	}
	b.WriteString(" read-only sampled | read-through sampled | read-only per read-through |\n|---|")
	b.WriteString(strings.Repeat("---|", 2*len(shifts)+2))
	b.WriteString("\n")
	for _, name := range names {
		rows := results[name]
		fmt.Fprintf(&b, "| %s |", name)
		for i := range shifts {
			sum := 0.0
			for _, row := range rows {
				sum += row[i].ratio()
			}
			fmt.Fprintf(&b, " %.3f |", sum/float64(len(rows)))
		}
		for i := 1; i < len(shifts); i++ {
			b.WriteString(diffCell(rows, i))
		}
		var ro, rw, per float64
		for _, row := range rows {
			last := row[len(row)-1]
			ro, rw, per = ro+last.roSampled/last.ro, rw+last.rwSampled/last.rw, per+last.ro/last.rw
		}
		n := float64(len(rows))
		fmt.Fprintf(&b, " %.1f%% | %.2f%% | %.2f |\n", 100*ro/n, 100*rw/n, per/n)
	}
	return b.String()
}

// diffCell is the table cell of shift i's hit ratio minus the first shift's.
func diffCell(rows [][]phaseResult, i int) string {
	var d []float64
	sum, lo, hi, lower := 0.0, math.Inf(1), math.Inf(-1), 0
	for _, row := range rows {
		x := row[i].ratio() - row[0].ratio()
		d = append(d, x)
		sum, lo, hi = sum+x, min(lo, x), max(hi, x)
		if x < 0 {
			lower++
		}
	}
	mean, ss := sum/float64(len(d)), 0.0
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(max(1, len(d)-1)))
	return fmt.Sprintf(" %+.3f (%.3f) [%+.3f, %+.3f] %d of %d |", mean, sd, lo, hi, lower, len(d))
}

func (r phaseResult) ratio() float64 { return 100 * r.hits / r.rw }
