package main

// The differential test (diff_test.go) with the gateway on two Redis shards,
// with and without the caching tier. Each seed's keys lie on both shards
// (multi-key commands span them), and transactions may touch both: the
// gateway refuses such a WATCH or EXEC with CROSSSLOT (README: the keys of a
// transaction share a shard), so that command goes to the gateway alone,
// and Redis gets a stand-in that leaves it in the state the refusal leaves
// the gateway in (PING for WATCH, DISCARD for EXEC).
//
// What is compared loosely there, and why, is in the list at the top of
// diff_test.go.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// spreadKeys adds keys on the shards the seed's keys miss (Redis shards
// only): for a transaction seed, keys under a second hash tag.
func (g *diffGen) spreadKeys(seed uint64) {
	if g.shardOf == nil {
		return
	}
	first := g.shardOf(g.keys[0])
	for i := range 64 {
		k := fmt.Sprintf("d%d:%d", seed, i)
		if g.tx {
			k = fmt.Sprintf("{d%d.%d}", seed, i)
		}
		if g.shardOf(k) != first {
			g.keys = append(g.keys, k+"a", k+"b")
			return
		}
	}
}

// changing makes a write of a watched key (outside MULTI) change the key's
// state when it succeeds, on Redis shards: there a rewrite with the same
// value and expiry does not abort EXEC, where Redis's own WATCH does.
func (g *diffGen) changing(c []string) []string {
	if g.shardOf == nil {
		return c
	}
	switch strings.ToUpper(c[0]) {
	case "SET":
		g.uniq++
		c[2] = fmt.Sprintf("u%d", g.uniq)
	case "INCRBY", "DECRBY":
		if c[2] == "0" {
			c[2] = "1"
		}
	}
	return c
}

// diffKeys are the keys of a command the generator makes.
func diffKeys(c []string) []string {
	switch strings.ToUpper(c[0]) {
	case "GET", "SET", "INCR", "DECR", "INCRBY", "DECRBY":
		return c[1:min(2, len(c))]
	case "MSET":
		var ks []string
		for i := 1; i < len(c); i += 2 {
			ks = append(ks, c[i])
		}
		return ks
	case "MGET", "EXISTS", "DEL", "UNLINK", "WATCH":
		return c[1:]
	}
	return nil
}

// crossShard reports whether the gateway refuses c with CROSSSLOT: a WATCH
// outside MULTI, or an EXEC of a transaction no command refused, whose keys
// are not all on the shard of the transaction (the first key's if none).
// With pending (the commands before c in its pipeline, not yet answered) it
// may answer true where c turns out not to be refused (it counts them all
// as queued), never false where c is: the caller sends pending first and
// asks again without.
func (g *diffGen) crossShard(c []string, pending [][]string) bool {
	if g.shardOf == nil {
		return false
	}
	var keys []string
	switch strings.ToUpper(c[0]) {
	case "WATCH":
		if g.multi {
			return false
		}
		keys = c[1:]
	case "EXEC":
		multi := g.multi
		for _, q := range pending {
			multi = multi || strings.EqualFold(q[0], "MULTI")
			keys = append(keys, diffKeys(q)...)
		}
		if !multi || g.aborted || len(c) != 1 {
			return false
		}
		for _, q := range g.queued {
			keys = append(keys, diffKeys(q)...)
		}
	default:
		return false
	}
	sh := g.txShard
	for _, k := range keys {
		if sh < 0 {
			sh = g.shardOf(k)
		} else if g.shardOf(k) != sh {
			return true
		}
	}
	return false
}

// crossStandIn is what Redis gets in place of a WATCH or EXEC the gateway
// refuses with CROSSSLOT.
func crossStandIn(c []string) []string {
	if strings.EqualFold(c[0], "EXEC") {
		return []string{"DISCARD"}
	}
	return []string{"PING"}
}

// doCross sends c to the gateway, which must refuse it with CROSSSLOT, and
// its stand-in to Redis, which must accept it.
func (p *diffPair) doCross(c []string, g *diffGen) string {
	sub := crossStandIn(c)
	want, got, werr, gerr := p.both([][]string{sub}, [][]string{c}, false)
	switch {
	case werr != nil:
		return fmt.Sprintf("redis: %v", werr)
	case gerr != nil:
		return fmt.Sprintf("gateway: %v", gerr)
	case got[0].typ != '-' || got[0].errCode() != "CROSSSLOT":
		return fmt.Sprintf("%s: gateway %v, want CROSSSLOT", quoteCmd(c), got[0])
	case want[0].typ == '-':
		return fmt.Sprintf("%s: redis %v", quoteCmd(sub), want[0])
	}
	g.observe(sub, want[0])
	return ""
}

func TestDifferentialRedisShards(t *testing.T) {
	seeds, steps := uint64(12), 150
	if v, err := strconv.Atoi(os.Getenv("DIFF_SEEDS")); err == nil {
		seeds = uint64(v)
	}
	if testing.Short() {
		seeds = 4
	}
	for _, capacity := range []int{0, 1000} {
		t.Run(fmt.Sprintf("cache=%d", capacity), func(t *testing.T) {
			rs := startRedis(t)
			var addrs []string
			for range 2 {
				addrs = append(addrs, startRedis(t).addr)
			}
			in := startGateway(t, Config{HTTPAddr: "-", CacheCapacity: capacity,
				Backend: BackendConfig{Kind: "redis", Redis: addrs, Pool: 4}})
			var diffs []string
			for seed := range seeds {
				if d := runDiffSeed(rs.addr, in.Addr(), seed, steps, in.gw.shard); d != "" {
					diffs = append(diffs, d)
				}
			}
			if len(diffs) > 0 {
				t.Fatalf("%d of %d seeds differ:\n%s", len(diffs), seeds, strings.Join(diffs[:min(len(diffs), 10)], "\n\n"))
			}
		})
	}
}
