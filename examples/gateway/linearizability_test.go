package main

// A per-key linearizability check of histories recorded through the gateway,
// which the randomized invariants of concurrent_invariants_test.go cannot
// show: there each client checks what it can see alone (its own writes, a
// writer's order, counters' sums); here every call and return of every
// client on a key is checked against one register at once, so a read that
// returns a value already overwritten before the read began (by any
// client) is caught, as is an INCR that skipped a concurrent write.
//
// Clients run random GET, SET, INCR, DEL, MSET and MGET, some in pipelines,
// on a handful of keys spread over the shards, with the defaults on:
// batching, coalescing, the hot-key linger. Each key's history is a
// register (INCR reads, modifies and writes it in one step); multi-key
// commands are split per key, which is sound for them: an MSET across
// shards is not atomic, but each key's write is, at some point within the
// command's call and return, and so is each key's read of an MGET. A DEL of
// several keys answers a count over all of them, so its per-key parts are
// writes whose answer is not checked.
//
// A command that answered an error other than INCR's "not an integer" (a
// refusal under load, a timeout) may or may not have taken effect: a write
// is then recorded as returning never (it may take effect at any point
// after its call, or not at all), and a read is left out. A pipeline's
// commands all get the pipeline's call and return times, a wider interval
// than each one's own: also sound.
//
// With the caching tier on, a GET may be served stale within the bound
// (here 20ms). The writes, INCRs and DELs, which go to the store, are then
// checked as above, and each read on its own against them (linStale): its
// value must have been current at some point within [call - bound, return],
// the tier's contract. That is weaker than one order of the writes
// explaining every read at once, which porcupine, given reads that begin a
// bound earlier, did not decide in 20 s for some keys.
//
// It found that a GET could join a coalesced fetch already sent to its
// shard, and so read a value older than one another read had returned (about
// one run in 50 on Redis shards); it runs with linearizable_reads on, which
// keeps GETs from joining a sent fetch (off by default: README).
//
// porcupine decides each key's history within linTimeout, and an undecided
// check fails the test as such rather than hanging. LIN_STEPS=n runs n
// steps per client instead of 250.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

const (
	linClients = 8
	linKeys    = 6
	linTimeout = 20 * time.Second // per key; a correct history decides in milliseconds
	linBound   = 20 * time.Millisecond
)

// linIn is a command on one key, as the register model sees it.
type linIn struct {
	kind byte   // 'g' get, 's' set, 'i' incr, 'd' del
	val  string // 's': the value written
	// anyOut: the reply says nothing checkable about this key (a DEL of
	// several keys answers their total).
	anyOut bool
}

// linOut is its reply.
type linOut struct {
	unknown bool   // an error: the write may or may not have applied
	found   bool   // 'g': the key existed; 'd': it was deleted
	val     string // 'g': the value read
	n       int64  // 'i': the new value
	notInt  bool   // 'i': the value was not an integer
}

// linState is the register: comparable, so porcupine's default equality
// and memoization apply.
type linState struct {
	exists bool
	val    string
}

var linModel = porcupine.Model{
	Init: func() any { return linState{} },
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(linState), input.(linIn), output.(linOut)
		switch in.kind {
		case 'g':
			return out.found == s.exists && (!s.exists || out.val == s.val), s
		case 's':
			return true, linState{exists: true, val: in.val}
		case 'd':
			return out.unknown || in.anyOut || out.found == s.exists, linState{}
		}
		// 'i'
		n := int64(0)
		if s.exists {
			var err error
			if n, err = strconv.ParseInt(s.val, 10, 64); err != nil {
				return out.unknown || out.notInt, s
			}
		}
		n++
		return out.unknown || !out.notInt && out.n == n, linState{exists: true, val: strconv.FormatInt(n, 10)}
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(linIn), output.(linOut)
		switch {
		case out.unknown:
			return fmt.Sprintf("%c %q -> ?", in.kind, in.val)
		case in.kind == 'g':
			return fmt.Sprintf("get -> %v %q", out.found, out.val)
		case in.kind == 's':
			return fmt.Sprintf("set %q", in.val)
		case in.kind == 'd':
			return fmt.Sprintf("del -> %v (any %v)", out.found, in.anyOut)
		}
		return fmt.Sprintf("incr -> %d (not int %v)", out.n, out.notInt)
	},
}

// linRecorder collects each key's operations.
type linRecorder struct {
	base   time.Time
	cached time.Duration // the staleness bound reads are allowed (0: none)
	mu     sync.Mutex
	ops    map[string][]porcupine.Operation
	reads  map[string][]porcupine.Operation // with cached: the reads, not in ops
	vague  int                              // writes recorded as returning never
}

func (r *linRecorder) now() int64 { return int64(time.Since(r.base)) }

func (r *linRecorder) add(client int, key string, in linIn, out linOut, call, ret int64) {
	if out.unknown {
		if in.kind == 'g' {
			return
		}
		ret = math.MaxInt64
	}
	o := porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret}
	r.mu.Lock()
	defer r.mu.Unlock()
	if out.unknown {
		r.vague++
	}
	if in.kind == 'g' && r.cached > 0 {
		r.reads[key] = append(r.reads[key], o)
		return
	}
	r.ops[key] = append(r.ops[key], o)
}

// linCmd is one client command and, after its reply, each key's part.
type linCmd struct {
	cmd   redis.Cmder
	parts func(err error) []linPart
}

type linPart struct {
	key string
	in  linIn
	out linOut
}

// linUnknown tells an error reply that leaves the outcome unknown from a
// definite one (redis.Nil: no key).
func linUnknown(err error) bool { return err != nil && !errors.Is(err, redis.Nil) }

// linClient issues random commands on keys.
type linClient struct {
	id   int
	r    *rand.Rand
	c    *redis.Client
	keys []string
	seq  int
}

func (c *linClient) key() string { return c.keys[c.r.IntN(len(c.keys))] }

// value is a new value: mostly an integer unlikely to meet another (so
// histories stay easy to decide), sometimes a string INCR refuses.
func (c *linClient) value() string {
	c.seq++
	if c.r.IntN(5) == 0 {
		return fmt.Sprintf("s%d.%d", c.id, c.seq)
	}
	return strconv.Itoa((c.id+1)*10_000_000 + c.seq*10_000)
}

func (c *linClient) command(ctx context.Context, p redis.Cmdable) linCmd {
	switch n := c.r.IntN(20); {
	case n < 6:
		k := c.key()
		cmd := p.Get(ctx, k)
		return linCmd{cmd, func(err error) []linPart {
			return []linPart{{k, linIn{kind: 'g'}, linOut{unknown: linUnknown(err), found: err == nil, val: cmd.Val()}}}
		}}
	case n < 10:
		k, v := c.key(), c.value()
		cmd := p.Set(ctx, k, v, 0)
		return linCmd{cmd, func(err error) []linPart {
			return []linPart{{k, linIn{kind: 's', val: v}, linOut{unknown: err != nil}}}
		}}
	case n < 14:
		k := c.key()
		cmd := p.Incr(ctx, k)
		return linCmd{cmd, func(err error) []linPart {
			notInt := err != nil && strings.Contains(err.Error(), "not an integer")
			return []linPart{{k, linIn{kind: 'i'}, linOut{unknown: err != nil && !notInt, notInt: notInt, n: cmd.Val()}}}
		}}
	case n < 16:
		ks := c.keys[:0:0]
		for range 1 + c.r.IntN(2) {
			ks = append(ks, c.key())
		}
		ks = slices.Compact(slices.Sorted(slices.Values(ks)))
		cmd := p.Del(ctx, ks...)
		return linCmd{cmd, func(err error) []linPart {
			var parts []linPart
			for _, k := range ks {
				parts = append(parts, linPart{k, linIn{kind: 'd', anyOut: len(ks) > 1}, linOut{unknown: err != nil, found: cmd.Val() == 1}})
			}
			return parts
		}}
	case n < 18:
		vals := map[string]string{} // a key given twice: the last value stays
		var args []any
		for range 2 + c.r.IntN(3) {
			k, v := c.key(), c.value()
			vals[k] = v
			args = append(args, k, v)
		}
		cmd := p.MSet(ctx, args...)
		return linCmd{cmd, func(err error) []linPart {
			var parts []linPart
			for k, v := range vals {
				parts = append(parts, linPart{k, linIn{kind: 's', val: v}, linOut{unknown: err != nil}})
			}
			return parts
		}}
	default:
		ks := make([]string, 2+c.r.IntN(3))
		for i := range ks {
			ks[i] = c.key()
		}
		cmd := p.MGet(ctx, ks...)
		return linCmd{cmd, func(err error) []linPart {
			if err != nil {
				return nil
			}
			var parts []linPart
			for i, v := range cmd.Val() {
				s, ok := v.(string)
				parts = append(parts, linPart{ks[i], linIn{kind: 'g'}, linOut{found: ok, val: s}})
			}
			return parts
		}}
	}
}

// step runs one command, or a pipeline of a few, and records them. A
// command is built on a pipeline, as a client's Cmdable would run it at once.
func (c *linClient) step(ctx context.Context, rec *linRecorder) error {
	n := 1
	if c.r.IntN(4) == 0 {
		n = 2 + c.r.IntN(4)
	}
	pipe := c.c.Pipeline()
	cmds := make([]linCmd, n)
	for i := range cmds {
		cmds[i] = c.command(ctx, pipe)
	}
	call := rec.now()
	_, err := pipe.Exec(ctx)
	ret := rec.now()
	if err != nil && !slices.ContainsFunc(cmds, func(lc linCmd) bool { return lc.cmd.Err() != nil }) {
		return err // the pipeline failed as a whole, with no command's error
	}
	for _, lc := range cmds {
		for _, p := range lc.parts(lc.cmd.Err()) {
			rec.add(c.id, p.key, p.in, p.out, call, ret)
		}
	}
	return nil
}

// linPickKeys returns linKeys keys spread over the shards of in.
func linPickKeys(t *testing.T, in *instance, prefix string) []string {
	shards := in.gw.backend.Shards()
	per := (linKeys + shards - 1) / shards
	count := map[int]int{}
	var keys []string
	for i := 0; len(keys) < linKeys; i++ {
		require.Less(t, i, 1000)
		k := fmt.Sprintf("%s:%d", prefix, i)
		if s := in.gw.shard(k); count[s] < per {
			count[s]++
			keys = append(keys, k)
		}
	}
	require.GreaterOrEqual(t, len(count), min(shards, linKeys))
	return keys
}

// runLinearizability runs the clients on in and checks each key's history.
func runLinearizability(t *testing.T, in *instance, bound time.Duration, seed uint64, steps int) {
	ctx := context.Background()
	keys := linPickKeys(t, in, fmt.Sprintf("lin%d", seed))
	rec := &linRecorder{base: time.Now(), cached: bound, ops: map[string][]porcupine.Operation{}, reads: map[string][]porcupine.Operation{}}
	var wg sync.WaitGroup
	errs := make(chan error, linClients)
	for id := range linClients {
		c := &linClient{id: id, r: rand.New(rand.NewPCG(seed, uint64(id))), keys: keys,
			c: client(t, in, &redis.Options{PoolSize: 1, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})}
		wg.Go(func() {
			for range steps {
				if err := c.step(ctx, rec); err != nil {
					errs <- fmt.Errorf("client %d: %w", c.id, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total := 0
	for _, k := range keys {
		ops := rec.ops[k]
		total += len(ops) + len(rec.reads[k])
		stale := 0
		for _, r := range rec.reads[k] {
			if d := linStale(ops, r, bound); d != "" {
				if stale++; stale <= 5 {
					t.Errorf("key %s: %s", k, d)
				}
			}
		}
		if stale > 5 {
			t.Errorf("key %s: %d such reads in all", k, stale)
		}
		res, info := porcupine.CheckOperationsVerbose(linModel, ops, linTimeout)
		switch res {
		case porcupine.Unknown:
			t.Errorf("key %s: %d operations undecided in %v", k, len(ops), linTimeout)
		case porcupine.Illegal:
			t.Errorf("key %s: not linearizable\n%s", k, linExplain(ops, info))
		}
	}
	t.Logf("seed %d: %d operations on %d keys, %d writes of unknown outcome", seed, total, len(keys), rec.vague)
	require.Greater(t, total, linClients*steps, "too few operations recorded")
	if in.gw.cache != nil {
		st := in.gw.cache.stats()
		t.Logf("cache: %d hits, %d misses", st["hits"], st["misses"])
	}
}

// linStale checks a read r served with the caching tier on, against the
// writes of its key (ops, found linearizable): r must return a value some
// write made (or the initial absence) that no other write surely replaced
// before r's call less the staleness bound: a write that began after it
// returned, and returned before r's call - bound. This is what the tier
// promises of each read (the value was current at some point within
// [call - bound, return]), checked read by read: weaker than asking one
// order of the writes to explain every read at once, which a checker
// decides slowly once reads span a bound's worth of writes.
func linStale(ops []porcupine.Operation, r porcupine.Operation, bound time.Duration) string {
	ro := r.Output.(linOut)
	// after is the state an op surely leaves, if it leaves one.
	after := func(o porcupine.Operation) (linState, bool) {
		in, out := o.Input.(linIn), o.Output.(linOut)
		switch {
		case out.unknown && in.kind != 's' && in.kind != 'd':
			return linState{}, false // an INCR: its value unknown
		case in.kind == 's':
			return linState{exists: true, val: in.val}, true
		case in.kind == 'd':
			return linState{}, true
		case out.notInt:
			return linState{}, false
		}
		return linState{exists: true, val: strconv.FormatInt(out.n, 10)}, true
	}
	want := linState{exists: ro.found, val: ro.val}
	made := func(o porcupine.Operation) bool {
		s, ok := after(o)
		if !ok { // an INCR of unknown outcome may have made any integer
			_, err := strconv.ParseInt(ro.val, 10, 64)
			return o.Input.(linIn).kind == 'i' && o.Output.(linOut).unknown && ro.found && err == nil
		}
		return s == want
	}
	replaced := func(from int64) bool {
		for _, x := range ops {
			s, ok := after(x)
			if ok && !x.Output.(linOut).unknown && x.Call > from && x.Return < r.Call-int64(bound) && s != want {
				return true
			}
		}
		return false
	}
	if !ro.found && !replaced(math.MinInt64) {
		return "" // still the initial absence
	}
	for _, w := range ops {
		if w.Call <= r.Return && made(w) && !replaced(w.Return) {
			return ""
		}
	}
	return fmt.Sprintf("client %d read %s in [%d, %d]: no write made it, or one surely replaced it before %v earlier",
		r.ClientId, linModel.DescribeOperation(r.Input, r.Output), r.Call, r.Return, bound)
}

// linExplain describes a failed check: the operations from just before the
// point the longest partial linearization reached, in call order.
func linExplain(ops []porcupine.Operation, info porcupine.LinearizationInfo) string {
	var longest []int
	for _, part := range info.PartialLinearizations() {
		for _, l := range part {
			if len(l) > len(longest) {
				longest = l
			}
		}
	}
	done := map[int]bool{}
	for _, i := range longest {
		done[i] = true
	}
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(min(max(ops[a].Call-ops[b].Call, -1), 1)) })
	first := slices.IndexFunc(order, func(i int) bool { return !done[i] })
	var b strings.Builder
	fmt.Fprintf(&b, "linearized %d of %d; the first left out is marked *\n", len(longest), len(ops))
	if len(longest) > 0 {
		last := ops[longest[len(longest)-1]]
		fmt.Fprintf(&b, "  last linearized: client %d %s [%d, %d]\n", last.ClientId, linModel.DescribeOperation(last.Input, last.Output), last.Call, last.Return)
	}
	for j := max(0, first-12); j < min(len(order), first+12); j++ {
		o := ops[order[j]]
		mark := " "
		if j == first {
			mark = "*"
		}
		ret := "never"
		if o.Return != math.MaxInt64 {
			ret = fmt.Sprint(o.Return)
		}
		fmt.Fprintf(&b, " %s client %d %-32s [%d, %s] linearized %v\n", mark, o.ClientId, linModel.DescribeOperation(o.Input, o.Output), o.Call, ret, done[order[j]])
	}
	return b.String()
}

func TestLinearizablePerKey(t *testing.T) {
	steps := 250
	if v, err := strconv.Atoi(os.Getenv("LIN_STEPS")); err == nil {
		steps = v
	}
	for _, backend := range []string{"memkv", "redis"} {
		for _, cached := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/cached=%v", backend, cached), func(t *testing.T) {
				// batching, coalescing, the hot-key linger: on by default;
				// linearizable_reads keeps GETs from joining a sent fetch
				cfg := Config{HTTPAddr: "-", LinearizableReads: true}
				if backend == "redis" {
					cfg.Backend = BackendConfig{Kind: "redis", Redis: []string{startRedis(t).addr, startRedis(t).addr}, Pool: 4}
				}
				bound := time.Duration(0)
				if cached {
					bound = linBound
					cfg.CacheCapacity, cfg.CacheStaleness = 1000, Duration(bound)
				}
				in := startGateway(t, cfg)
				require.True(t, in.gw.coalesceOn.Load() && in.gw.hot.linger.Load() > 0, "coalescing and the hot-key linger on")
				for seed := range uint64(2) {
					runLinearizability(t, in, bound, seed, steps)
				}
			})
		}
	}
}
