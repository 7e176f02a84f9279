package main

// A randomized concurrent test of the gateway end to end: several clients
// run random pipelines of GET, SET (with options), MGET, MSET, DEL, EXISTS,
// INCR, MULTI..EXEC and WATCH on a small key space at once, while a control
// goroutine turns the knobs (coalescing, the hot-key linger, the batcher's
// linger, policy, items and batches in flight, the cache's staleness
// bound). The interleaving differs from run to run; the invariants checked
// hold under every one of them, so the outcome does not:
//   - private keys (one client's only) answer exactly as a sequential model
//     says: a client reads its own writes, SET NX/XX, DEL and EXISTS count
//     what it wrote, INCR fails on what is not an integer;
//   - shared counters, only ever incremented, end at the sum of the
//     increments that answered, and no two INCRs answer the same value; a
//     client never reads less than its own last INCR answered;
//   - a read of a shared key returns nothing or a value written to that
//     key; without the caching tier (whose hits may be stale within its
//     bound), a client never reads a writer's older value after a newer one;
//   - keys of one shard written together (by MULTI..EXEC, or by MSET and
//     DEL) are read together (a transaction's GETs; an MGET, without the
//     caching tier, whose MGET takes each key from the cache or the
//     store) with one value, and DEL finds both or neither;
//   - a WATCH counter (read, MULTI, SET read+1, EXEC) ends at the number of
//     EXECs that committed;
//   - every reply is its own command's (ECHO of a unique token).
// Refusals under load (OVERLOADED) are allowed: a refused write leaves its
// keys unknown to the model until the client writes them again. Each seed
// has keys of its own. CONC_SEEDS=n runs n seeds per variant instead of 2,
// CONC_STEPS=n pipelines per client instead of 400.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

var (
	invClients = 6
	invSteps   = 400
)

func init() {
	if v, err := strconv.Atoi(os.Getenv("CONC_STEPS")); err == nil {
		invSteps = v
	}
}

// invKeys are a seed's keys (a seed's own: a refused write of another seed
// cannot linger in them).
type invKeys struct {
	counters, shared []string
	pair             [2]string // written together by MULTI..EXEC only
	mpair            [2]string // written together by MSET and DEL only
	cas              string    // written by WATCH..EXEC only
}

func newInvKeys(seed uint64) invKeys {
	f := func(format string) string { return fmt.Sprintf(format, seed) }
	return invKeys{counters: []string{f("{n%d}0"), f("n%d:1"), f("n%d:2")},
		shared: []string{f("r%d:a"), f("r%d:b"), f("{g%d}r"), f("{g%d}s")},
		pair:   [2]string{f("{x%d}a"), f("{x%d}b")}, mpair: [2]string{f("{m%d}a"), f("{m%d}b")}, cas: f("{w%d}n")}
}

// invState is what the clients share: the tokens written, the counters'
// successful increments and the WATCH counter's commits.
type invState struct {
	invKeys
	mu       sync.Mutex
	written  map[string]bool // shared and pair values sent in a write
	incrSum  map[string]int64
	incrSeen map[string]map[int64]bool // INCR replies: each at most once
	casOK    int
	casErr   int // EXECs that answered an error: committed or not
	fails    []string
}

func (s *invState) fail(f string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.fails) < 20 {
		s.fails = append(s.fails, fmt.Sprintf(f, a...))
	}
}

func (s *invState) wrote(v string) {
	s.mu.Lock()
	s.written[v] = true
	s.mu.Unlock()
}

func (s *invState) isWritten(v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written[v]
}

// invPriv is the model of one private key: known is false after a write
// whose outcome the client cannot tell (it answered an error).
type invPriv struct {
	known, exists bool
	val           string
}

// invOp is one command of a pipeline and the check of its reply, run in the
// pipeline's order (so a check may use and update the client's model).
type invOp struct {
	cmd   []string
	check func(v rval) string
}

type invClient struct {
	id     int
	r      *rand.Rand
	c      *respConn
	st     *invState
	cached bool
	seq    int
	priv   map[string]*invPriv
	keys   []string // private
	// Per shared key and writer, the newest seq read in an earlier
	// pipeline (seenNow: in the current one, merged after it).
	seen, seenNow map[string]map[int]int
	floor         map[string]int64 // per counter: the least a read may answer
	floorNow      map[string]int64
	casFloor      int64
	history       []string // the pipelines sent and their replies, for a failure
}

// invRefused reports a refusal under load (OVERLOADED): of a command across
// shards, some parts may have been applied. An MSET or a DEL of which one
// shard's part was refused while another's was applied answers "ERR backend
// shard N: OVERLOADED ..." instead (a partial write, not a refusal), which
// leaves the model knowing as little.
func invRefused(v rval) bool {
	if v.typ != '-' {
		return false
	}
	if v.errCode() == "OVERLOADED" {
		return true
	}
	rest, ok := strings.CutPrefix(v.s, "ERR backend shard ")
	_, rest, _ = strings.Cut(rest, ": ")
	return ok && strings.HasPrefix(rest, "OVERLOADED ")
}

func (c *invClient) token(key string) string {
	c.seq++
	return fmt.Sprintf("v|%s|%d|%d", key, c.id, c.seq)
}

// sharedValue checks a read of shared key k.
func (c *invClient) sharedValue(k string, v rval) string {
	if v.null {
		return ""
	}
	if v.typ != '$' {
		return fmt.Sprintf("GET %s: %v", k, v)
	}
	parts := strings.Split(v.s, "|")
	if len(parts) != 4 || parts[0] != "v" || parts[1] != k || !c.st.isWritten(v.s) {
		return fmt.Sprintf("GET %s: %q was never written to it", k, v.s)
	}
	if c.cached {
		return ""
	}
	w, _ := strconv.Atoi(parts[2])
	seq, _ := strconv.Atoi(parts[3])
	if old := c.seen[k][w]; seq < old {
		return fmt.Sprintf("GET %s: %q after a read of writer %d's seq %d", k, v.s, w, old)
	}
	if c.seenNow[k] == nil {
		c.seenNow[k] = map[int]int{}
	}
	c.seenNow[k][w] = max(c.seenNow[k][w], seq)
	return ""
}

// counterValue checks a read of counter k.
func (c *invClient) counterValue(k string, v rval) string {
	if v.null {
		if c.floor[k] > 0 {
			return fmt.Sprintf("GET %s: null after %d", k, c.floor[k])
		}
		return ""
	}
	n, err := strconv.ParseInt(v.s, 10, 64)
	if v.typ != '$' || err != nil {
		return fmt.Sprintf("GET %s: %v", k, v)
	}
	if n < c.floor[k] {
		return fmt.Sprintf("GET %s: %d after %d", k, n, c.floor[k])
	}
	if !c.cached {
		c.floorNow[k] = max(c.floorNow[k], n)
	}
	return ""
}

// cas runs one WATCH..EXEC increment of the WATCH counter: two round trips.
func (c *invClient) cas() string {
	rs, err := c.c.do([][]string{{"WATCH", c.st.cas}, {"GET", c.st.cas}}, false)
	if err != nil {
		return err.Error()
	}
	if rs[0].typ != '+' || invRefused(rs[1]) {
		_, err := c.c.do([][]string{{"UNWATCH"}}, false)
		if err != nil {
			return err.Error()
		}
		if invRefused(rs[0]) || invRefused(rs[1]) {
			return ""
		}
		return fmt.Sprintf("WATCH: %v, GET: %v", rs[0], rs[1])
	}
	n := int64(0)
	if !rs[1].null {
		if n, err = strconv.ParseInt(rs[1].s, 10, 64); err != nil {
			return fmt.Sprintf("GET %s: %v", c.st.cas, rs[1])
		}
	}
	if n < c.casFloor {
		return fmt.Sprintf("GET %s after WATCH: %d after %d", c.st.cas, n, c.casFloor)
	}
	rs, err = c.c.do([][]string{{"MULTI"}, {"SET", c.st.cas, fmt.Sprint(n + 1)}, {"EXEC"}}, false)
	if err != nil {
		return err.Error()
	}
	c.history = append(c.history, fmt.Sprintf("CAS: GET %d, EXEC %v", n, rs[2]))
	ex := rs[2]
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	switch {
	case ex.null:
	case ex.typ == '*' && len(ex.elem) == 1 && ex.elem[0].s == "OK":
		c.st.casOK++
		c.casFloor = n + 1
	case ex.typ == '-' || slices.ContainsFunc(ex.elem, invRefused):
		c.st.casErr++
	default:
		return fmt.Sprintf("EXEC: %v (MULTI %v, SET %v)", ex, rs[0], rs[1])
	}
	return ""
}

// step sends one random pipeline and checks its replies.
func (c *invClient) step() string {
	if c.r.IntN(12) == 0 {
		return c.cas()
	}
	var ops []invOp
	for range 1 + c.r.IntN(6) {
		switch c.r.IntN(3) {
		case 0:
			ops = append(ops, c.privOp())
		case 1:
			ops = append(ops, c.sharedOp()...)
		default:
			tok := c.token("echo")
			ops = append(ops, invOp{[]string{"ECHO", tok}, func(v rval) string {
				if v.typ != '$' || v.s != tok {
					return fmt.Sprintf("ECHO %s: %v", tok, v)
				}
				return ""
			}})
		}
	}
	cmds := make([][]string, len(ops))
	for i, o := range ops {
		cmds[i] = o.cmd
	}
	rs, err := c.c.do(cmds, false)
	if err != nil {
		return err.Error()
	}
	c.seenNow, c.floorNow = map[string]map[int]int{}, map[string]int64{}
	var h []string
	for i, o := range ops {
		h = append(h, quoteCmd(o.cmd)+" -> "+rs[i].String())
	}
	c.history = append(c.history, strings.Join(h, "\n    "))
	for i, o := range ops {
		if d := o.check(rs[i]); d != "" {
			return fmt.Sprintf("%s: %s\nhistory:\n  %s", quoteCmd(o.cmd), d, strings.Join(c.history[max(0, len(c.history)-8):], "\n  ---\n  "))
		}
	}
	for k, m := range c.seenNow {
		if c.seen[k] == nil {
			c.seen[k] = map[int]int{}
		}
		for w, s := range m {
			c.seen[k][w] = max(c.seen[k][w], s)
		}
	}
	for k, n := range c.floorNow {
		c.floor[k] = max(c.floor[k], n)
	}
	return ""
}

// invKnobs turns random knobs until stop closes.
func invKnobs(t *testing.T, reg *control.Registry, r *rand.Rand, cached bool, stop <-chan struct{}, done chan<- int) {
	changes := 0
	defer func() { done <- changes }()
	us := time.Microsecond
	for {
		select {
		case <-stop:
			return
		default:
		}
		var ch control.Change
		switch n := r.IntN(8); {
		case n == 0:
			ch = control.Change{Knob: "gateway.coalesce", Value: control.Bool(r.IntN(2) == 0)}
		case n == 1:
			ch = control.Change{Knob: "gateway.hot_linger", Value: control.Duration([]time.Duration{0, 50 * us, time.Millisecond, 3 * time.Millisecond}[r.IntN(4)])}
		case n == 2:
			ch = control.Change{Knob: "batcher.linger", Value: control.Duration([]time.Duration{us, 100 * us, time.Millisecond, 2 * time.Millisecond}[r.IntN(4)])}
		case n == 3:
			ch = control.Change{Knob: "batcher.natural", Value: control.Bool(r.IntN(3) != 0)}
		case n == 4:
			ch = control.Change{Knob: "batcher.max_items", Value: control.Int([]int64{1, 2, 8, 64}[r.IntN(4)])}
		case n == 5:
			ch = control.Change{Knob: "batcher.max_in_flight", Value: control.Int([]int64{4, 8, 64, 1024}[r.IntN(4)])}
		case n == 6 && cached:
			ch = control.Change{Knob: "cache.max_staleness", Value: control.Duration([]time.Duration{time.Millisecond, 10 * time.Millisecond, time.Second}[r.IntN(3)])}
		default:
			ch = control.Change{Knob: "gateway.coalesce", Value: control.Bool(true)}
		}
		if _, err := reg.Apply(control.Request{Who: "test", Why: "random", Changes: []control.Change{ch}}); err != nil {
			t.Errorf("%s: %v", ch.Knob, err)
			return
		}
		changes++
		time.Sleep(time.Duration(r.IntN(3000)) * us) // pacing only: no outcome depends on it
	}
}

// invSettled sends read-only cmds until no reply is a refusal under load,
// for at most 30 s: refusals past that fail the test rather than hang it.
func invSettled(t *testing.T, c *respConn, cmds [][]string) []rval {
	deadline := time.Now().Add(30 * time.Second)
	for {
		rs, err := c.do(cmds, false)
		require.NoError(t, err)
		if !slices.ContainsFunc(rs, invRefused) {
			return rs
		}
		require.True(t, time.Now().Before(deadline), "final reads still refused after 30 s: %v", rs)
	}
}

func runConcurrentInvariants(t *testing.T, in *instance, cached bool, seed uint64) {
	require.NoError(t, in.reg.SetConfig(control.Config{})) // no change budget
	st := &invState{invKeys: newInvKeys(seed), written: map[string]bool{}, incrSum: map[string]int64{}, incrSeen: map[string]map[int64]bool{}}
	for _, k := range st.counters {
		st.incrSeen[k] = map[int64]bool{}
	}
	stop, knobsDone := make(chan struct{}), make(chan int, 1)
	go invKnobs(t, in.reg, rand.New(rand.NewPCG(seed, 99)), cached, stop, knobsDone)
	var wg sync.WaitGroup
	for id := range invClients {
		c := &invClient{id: id, r: rand.New(rand.NewPCG(seed, uint64(id))), st: st, cached: cached,
			priv: map[string]*invPriv{}, seen: map[string]map[int]int{}, floor: map[string]int64{}}
		for _, k := range []string{"p%d.%d:a", "p%d.%d:b", "p%d.%d:c", "{p%d.%d}d"} {
			c.keys = append(c.keys, fmt.Sprintf(k, seed, id))
		}
		for _, k := range c.keys {
			c.priv[k] = &invPriv{known: true}
		}
		var err error
		c.c, err = dialRESP(in.Addr())
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.c.close()
			for range invSteps {
				if d := c.step(); d != "" {
					st.fail("client %d: %s", c.id, d)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	t.Logf("%d knob changes", <-knobsDone)

	end, err := dialRESP(in.Addr())
	require.NoError(t, err)
	defer end.close()
	var cmds [][]string
	for _, k := range st.counters {
		cmds = append(cmds, []string{"GET", k})
	}
	cmds = append(cmds, []string{"GET", st.cas}, []string{"MGET", st.pair[0], st.pair[1]}, []string{"MGET", st.mpair[0], st.mpair[1]})
	rs := invSettled(t, end, cmds)
	for i, k := range st.counters {
		if got, want := rs[i].s, fmt.Sprint(st.incrSum[k]); got != want && !(want == "0" && rs[i].null) {
			st.fail("counter %s ends at %v, its INCRs added %s", k, rs[i], want)
		}
	}
	n, _ := strconv.Atoi(rs[len(st.counters)].s)
	if n < st.casOK || n > st.casOK+st.casErr {
		st.fail("WATCH counter ends at %v, %d EXECs committed (%d failed)", rs[len(st.counters)], st.casOK, st.casErr)
	}
	t.Logf("WATCH counter %d: %d EXECs committed, %d failed", n, st.casOK, st.casErr)
	c := &invClient{st: st}
	for _, v := range rs[len(rs)-2:] {
		if d := c.pairValues(v); d != "" {
			st.fail("at the end: %s", d)
		}
	}
	if len(st.fails) > 0 {
		t.Fatalf("seed %d: %d invariants broken:\n%s", seed, len(st.fails), strings.Join(st.fails, "\n\n"))
	}
}

func TestConcurrentInvariants(t *testing.T) {
	seeds := 2
	if v, err := strconv.Atoi(os.Getenv("CONC_SEEDS")); err == nil {
		seeds = v
	}
	for _, backend := range []string{"memkv", "redis"} {
		for _, capacity := range []int{0, 1000} {
			t.Run(fmt.Sprintf("%s/cache=%d", backend, capacity), func(t *testing.T) {
				cfg := Config{HTTPAddr: "-", CacheCapacity: capacity}
				if backend == "redis" {
					cfg.Backend = BackendConfig{Kind: "redis", Redis: []string{startRedis(t).addr, startRedis(t).addr}, Pool: 4}
				}
				in := startGateway(t, cfg)
				for seed := range seeds {
					runConcurrentInvariants(t, in, capacity > 0, uint64(seed))
				}
			})
		}
	}
}
