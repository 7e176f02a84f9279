package main

// TestPipelineRunsAsRedis: a connection's pipelines of SET (plain and with
// NX or XX), GET, INCR, INCRBY, DEL, EXISTS, MGET and MSET on a few keys,
// duplicates included, answer exactly as Redis answers them, while other
// connections read the same keys at once (single GETs, which coalesce and
// may linger as hot keys, and MGETs, which fill the caching tier) and write
// other keys (which mix the shards' batches): every command sees the
// effects of the connection's commands before it, however the gateway
// splits the pipeline into chunks (max_pipeline 8, pipelines of up to 24),
// runs, batches and shards, and whatever fetch of another connection is in
// flight. The other connections write none of the connection's keys, so
// Redis's replies to it are the reference. RUNS_SEEDS=n runs n seeds per
// gateway instead of 2. (Written by a review, which found no difference.)

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// runsKeys are the keys of the test: the other connections read the first
// runsHot; a pipeline uses those, so that its commands often share a key,
// or all of them, for longer runs.
var runsKeys = []string{"runs:a", "runs:b", "runs:c", "runs:d", "runs:e", "runs:f", "runs:g", "runs:h", "runs:i", "runs:j", "runs:k", "runs:l"}

const runsHot = 4

// runsCmd returns a random command on runsKeys.
func runsCmd(r *rand.Rand, nkeys int) []string {
	k := func() string { return runsKeys[r.IntN(nkeys)] }
	v := func() string {
		if r.IntN(3) == 0 {
			return "x" + strconv.Itoa(r.IntN(100))
		}
		return strconv.Itoa(r.IntN(20) - 5)
	}
	keys := func(name string) []string {
		c := []string{name}
		for range 1 + r.IntN(4) {
			c = append(c, k())
		}
		return c
	}
	switch r.IntN(12) {
	case 0, 1:
		return []string{"SET", k(), v()}
	case 2:
		return []string{"SET", k(), v(), []string{"NX", "XX"}[r.IntN(2)]}
	case 3, 4, 5:
		return []string{"GET", k()}
	case 6:
		return []string{"INCR", k()}
	case 7:
		return []string{"INCRBY", k(), strconv.Itoa(r.IntN(7) - 3)}
	case 8:
		return keys("DEL")
	case 9:
		return keys("EXISTS")
	case 10:
		return keys("MGET")
	}
	c := []string{"MSET"}
	for range 1 + r.IntN(3) {
		c = append(c, k(), v())
	}
	return c
}

// runsReaders reads the hot runsKeys on n connections to addr until stop
// closes (solo GETs, coalesced and hot, pipelined GETs and MGETs), and writes
// other keys. It returns the wait for them to be done.
func runsReaders(t *testing.T, addr string, n int, stop <-chan struct{}) func() {
	var wg sync.WaitGroup
	for i := range n {
		c, err := dialRESP(addr)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer c.close()
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for {
				select {
				case <-stop:
					return
				default:
				}
				cmds := [][]string{{"GET", runsKeys[r.IntN(runsHot)]}}
				switch r.IntN(6) {
				case 0:
					cmds[0] = append([]string{"MGET"}, runsKeys[:runsHot]...)
				case 1: // writes of other keys, which mix the batches
					cmds = append(cmds, []string{"SET", "runs:o" + strconv.Itoa(r.IntN(8)), "v"}, []string{"INCR", "runs:n" + strconv.Itoa(r.IntN(8))})
				case 2:
					cmds = append(cmds, []string{"GET", runsKeys[r.IntN(runsHot)]}, []string{"DEL", "runs:o" + strconv.Itoa(r.IntN(8))})
				}
				if _, err := c.do(cmds, false); err != nil {
					return
				}
			}
		})
	}
	return wg.Wait
}

// runPipelineRuns runs steps random pipelines of seed against Redis at
// redisAddr and the gateway at gwAddr, and returns the first difference.
func runPipelineRuns(redisAddr, gwAddr string, seed uint64, steps int) string {
	p, err := dialPair(redisAddr, gwAddr)
	if err != nil {
		return err.Error()
	}
	defer p.close()
	reset := [][]string{append([]string{"DEL"}, runsKeys...)}
	if _, err := p.redis.do(reset, false); err != nil {
		return err.Error()
	}
	if _, err := p.gw.do(reset, false); err != nil {
		return err.Error()
	}
	r := rand.New(rand.NewPCG(seed, 27))
	for step := range steps {
		cmds := make([][]string, 1+r.IntN(24))
		nkeys := []int{runsHot, len(runsKeys)}[r.IntN(2)]
		for i := range cmds {
			cmds[i] = runsCmd(r, nkeys)
		}
		want, werr := p.redis.do(cmds, false)
		got, gerr := p.gw.do(cmds, false)
		if werr != nil || gerr != nil {
			return fmt.Sprintf("step %d: redis %v, gateway %v", step, werr, gerr)
		}
		for i, c := range cmds {
			if d := sameExact(c, want[i], got[i]); d != "" {
				return fmt.Sprintf("seed %d step %d, command %d of %v: %s: %s", seed, step, i, cmds, quoteCmd(c), d)
			}
		}
	}
	return ""
}

func TestPipelineRunsAsRedis(t *testing.T) {
	seeds := 2
	if v, err := strconv.Atoi(os.Getenv("RUNS_SEEDS")); err == nil {
		seeds = v
	}
	rs := startRedis(t)
	shards := []string{startRedis(t).addr, startRedis(t).addr}
	for _, backend := range []string{"memkv", "redis"} {
		for _, capacity := range []int{0, 1000} {
			t.Run(fmt.Sprintf("%s/cache=%d", backend, capacity), func(t *testing.T) {
				cfg := Config{HTTPAddr: "-", CacheCapacity: capacity, Limits: Limits{MaxPipeline: 8}}
				// A long enough linger that hot reads are still waiting when the
				// connection's writes come in.
				cfg.HotLinger = Duration(2 * time.Millisecond)
				if backend == "redis" {
					cfg.Backend = BackendConfig{Kind: "redis", Redis: shards, Pool: 4}
				}
				in := startGateway(t, cfg)
				stop := make(chan struct{})
				wait := runsReaders(t, in.Addr(), 20, stop)
				defer wait()
				defer close(stop)
				defer func() { t.Logf("hot waits: woken %d, timed out %d", in.gw.hot.woken.Load(), in.gw.hot.timedOut.Load()) }()
				for seed := range seeds {
					if d := runPipelineRuns(rs.addr, in.Addr(), uint64(seed), 100); d != "" {
						t.Fatal(d)
					}
				}
			})
		}
	}
}
