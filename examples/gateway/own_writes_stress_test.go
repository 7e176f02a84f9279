package main

// A bounded stress of the batcher and the coalescing group on overlapping
// keys: many connections of two tenants send pipelines of GET, MGET, SET,
// DEL and INCR on a few shared keys, and every reply is checked after the
// run against the history (a logical clock stamps each pipeline's send and
// reply):
//   - a GET of a key returns nothing or a value written to it, never the
//     connection's own older value after its newer write, never a value
//     whose write had completed before the connection's last write of the
//     key began, and null after the connection's SET only if a DEL of the
//     key had not completed before that SET began;
//   - with linearizable_reads, the same holds against every connection's
//     writes that completed before the GET was sent;
//   - INCRs answer distinct values, the counters end at the sum of the
//     INCRs that answered, and a connection never reads a counter below
//     what its own last INCR answered.
//
// The backend answers batches holding a GET late (lateReads), so that a
// fetch read before a write is still open to joins when the write answers:
// without the write's drop of the key's fetch (Gateway.oneFrom), the run
// fails at once. TestConcurrentInvariants, whose shared keys check only the
// order of one writer's values, passed without it.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// owEvent is one command of the history.
type owEvent struct {
	conn      int
	kind      string // GET, SET, DEL, INCR
	key, val  string // val: SET's token; GET's reply ("" and null for none)
	null      bool
	n         int64 // INCR's reply
	refused   bool
	call, ret int64
}

type owRun struct {
	keys, counters []string
	clock          atomic.Int64
	mu             sync.Mutex
	hist           [][]owEvent // per connection, in program order
}

// pick returns a random command and its events (MGET has one per key);
// seq numbers the connection's SET tokens.
func (r *owRun) pick(rng *rand.Rand, id int, seq *int) ([]string, []owEvent) {
	k := r.keys[rng.IntN(len(r.keys))]
	switch x := rng.IntN(10); {
	case x < 3:
		*seq++
		tok := fmt.Sprintf("%d.%d", id, *seq)
		return []string{"SET", k, tok}, []owEvent{{kind: "SET", key: k, val: tok}}
	case x == 3:
		return []string{"DEL", k}, []owEvent{{kind: "DEL", key: k}}
	case x == 4:
		ck := r.counters[rng.IntN(len(r.counters))]
		return []string{"INCR", ck}, []owEvent{{kind: "INCR", key: ck}}
	case x == 5:
		ck := r.counters[rng.IntN(len(r.counters))]
		return []string{"GET", ck}, []owEvent{{kind: "GETN", key: ck}}
	case x == 6:
		k2 := r.keys[rng.IntN(len(r.keys))]
		return []string{"MGET", k, k2}, []owEvent{{kind: "MGET", key: k}, {kind: "MGET", key: k2}}
	}
	return []string{"GET", k}, []owEvent{{kind: "GET", key: k}}
}

func (r *owRun) client(addr string, id, steps int, tenant string) error {
	c, err := dialRESP(addr)
	if err != nil {
		return err
	}
	defer c.close()
	if rs, err := c.do([][]string{{"AUTH", tenant, "pw"}}, false); err != nil || rs[0].s != "OK" {
		return fmt.Errorf("AUTH: %v %v", rs, err)
	}
	rng := rand.New(rand.NewPCG(uint64(id), 7))
	var hist []owEvent
	seq := 0
	for range steps {
		var cmds [][]string
		var evs []owEvent
		for range 1 + rng.IntN(4) {
			cmd, ev := r.pick(rng, id, &seq)
			cmds = append(cmds, cmd)
			evs = append(evs, ev...)
		}
		call := r.clock.Add(1)
		rs, err := c.do(cmds, false)
		ret := r.clock.Add(1)
		if err != nil {
			return err
		}
		ei := 0
		for i, v := range rs {
			refused := v.typ == '-'
			if refused && !invRefused(v) {
				return fmt.Errorf("%v: %v", cmds[i], v)
			}
			elems := []rval{v}
			if cmds[i][0] == "MGET" {
				elems = v.elem
				if refused {
					elems = []rval{v, v}
				}
			}
			for _, e := range elems {
				ev := &evs[ei]
				ei++
				ev.conn, ev.call, ev.ret, ev.refused = id, call, ret, refused
				switch ev.kind {
				case "GET", "MGET", "GETN":
					if ev.kind == "MGET" {
						ev.kind = "GET"
					}
					ev.val, ev.null = e.s, e.null
				case "INCR":
					ev.n, _ = strconv.ParseInt(e.s, 10, 64)
				}
			}
		}
		hist = append(hist, evs...)
	}
	r.mu.Lock()
	r.hist[id] = hist
	r.mu.Unlock()
	return nil
}

// check returns the invariants the history breaks.
func (r *owRun) check(lin bool, final map[string]string) []string {
	writes := map[string][]*owEvent{} // per key, every SET and DEL
	byTok := map[string]*owEvent{}
	incrSum := map[string]int64{}
	incrSeen := map[string]map[int64]bool{}
	for _, h := range r.hist {
		for i := range h {
			e := &h[i]
			switch e.kind {
			case "SET", "DEL":
				writes[e.key] = append(writes[e.key], e)
				if e.kind == "SET" {
					byTok[e.val] = e
				}
			case "INCR":
				if e.refused {
					continue
				}
				incrSum[e.key]++
				if incrSeen[e.key] == nil {
					incrSeen[e.key] = map[int64]bool{}
				}
				if incrSeen[e.key][e.n] {
					return []string{fmt.Sprintf("INCR %s answered %d twice", e.key, e.n)}
				}
				incrSeen[e.key][e.n] = true
			}
		}
	}
	var bad []string
	for _, k := range r.counters {
		if got := final[k]; got != fmt.Sprint(incrSum[k]) && !(got == "" && incrSum[k] == 0) {
			bad = append(bad, fmt.Sprintf("counter %s ends at %q, its INCRs answered %d", k, got, incrSum[k]))
		}
	}
	for id, h := range r.hist {
		last := map[string]*owEvent{} // the connection's last write of each key, known applied
		incr := map[string]int64{}
		for i := range h {
			e := &h[i]
			switch e.kind {
			case "SET", "DEL":
				last[e.key] = e
				if e.refused {
					delete(last, e.key) // its outcome is unknown
				}
			case "INCR":
				if !e.refused {
					incr[e.key] = e.n
				}
			case "GETN":
				if n, _ := strconv.ParseInt(e.val, 10, 64); !e.refused && n < incr[e.key] {
					bad = append(bad, fmt.Sprintf("conn %d: GET %s = %q after its INCR answered %d", id, e.key, e.val, incr[e.key]))
				}
			case "GET":
				if e.refused {
					continue
				}
				before := []*owEvent{}
				if w := last[e.key]; w != nil {
					before = append(before, w)
				}
				if lin {
					for _, w := range writes[e.key] {
						if w.ret < e.call && !w.refused {
							before = append(before, w)
						}
					}
				}
				if d := r.staleRead(id, e, last[e.key], before, writes[e.key], byTok); d != "" {
					bad = append(bad, d)
				}
			}
		}
	}
	if lin {
		bad = append(bad, r.readAfterRead(byTok)...)
	}
	return bad
}

// readAfterRead returns the GETs that answered a value older than one a
// GET that had completed before them answered: a value whose write had
// completed before the other value's write began.
func (r *owRun) readAfterRead(byTok map[string]*owEvent) []string {
	reads := map[string][]*owEvent{}
	for _, h := range r.hist {
		for i := range h {
			if e := &h[i]; e.kind == "GET" && !e.refused && !e.null {
				reads[e.key] = append(reads[e.key], e)
			}
		}
	}
	var bad []string
	for _, rs := range reads {
		for _, e := range rs {
			src := byTok[e.val]
			for _, p := range rs {
				if p.ret >= e.call || p.val == e.val || src == nil {
					continue
				}
				if newer := byTok[p.val]; newer != nil && src.ret < newer.call {
					bad = append(bad, fmt.Sprintf("conn %d: GET %s [%d,%d] = %q written [%d,%d], after conn %d's GET [%d,%d] read %q written [%d,%d]",
						e.conn, e.key, e.call, e.ret, e.val, src.call, src.ret, p.conn, p.call, p.ret, p.val, newer.call, newer.ret))
					break
				}
			}
		}
	}
	return bad
}

// staleRead checks GET e of connection id against the writes that came
// before it (before; mine is the connection's own last write of the key).
func (r *owRun) staleRead(id int, e, mine *owEvent, before, all []*owEvent, byTok map[string]*owEvent) string {
	var src *owEvent
	if !e.null {
		if src = byTok[e.val]; src == nil || src.key != e.key {
			return fmt.Sprintf("conn %d: GET %s = %q, never written to it", id, e.key, e.val)
		}
		if src.conn == id && mine != nil && src != mine {
			return fmt.Sprintf("conn %d: GET %s = its own %q after its later write %+v", id, e.key, e.val, *mine)
		}
	}
	for _, w := range before {
		if w == src {
			continue
		}
		if src != nil && src.ret < w.call {
			return fmt.Sprintf("conn %d: GET %s [%d,%d] = %q written [%d,%d], before write %+v", id, e.key, e.call, e.ret, e.val, src.call, src.ret, *w)
		}
		if src == nil && w.kind == "SET" && !r.delAfter(all, w.call) {
			return fmt.Sprintf("conn %d: GET %s [%d,%d] = null after SET %+v, no DEL since", id, e.key, e.call, e.ret, *w)
		}
	}
	return ""
}

// delAfter reports whether a DEL among ws had not completed at t.
func (r *owRun) delAfter(ws []*owEvent, t int64) bool {
	for _, w := range ws {
		if w.kind == "DEL" && w.ret > t {
			return true
		}
	}
	return false
}

// lateReads is a Backend whose batches holding a GET answer late (it
// yields the processor a few times after the call): a fetch read before a
// write may still be in flight, open to joins, when the write has answered.
type lateReads struct{ Backend }

func (b *lateReads) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	err := b.Backend.Do(ctx, shard, ops, out)
	if slices.ContainsFunc(ops, func(o op) bool { return o.kind == opGet }) {
		for range 20 {
			runtime.Gosched()
		}
	}
	return err
}

func runOwnWrites(t *testing.T, lin bool, hot bool) {
	cfg := Config{HTTPAddr: "-", LinearizableReads: lin, NoHotLinger: !hot,
		Tenants: []TenantConfig{{Name: "a", Password: "pw"}, {Name: "b", Password: "pw"}}}
	in := startGateway(t, cfg)
	in.gw.backend = &lateReads{Backend: in.gw.backend} // before any traffic
	r := &owRun{keys: []string{"{h}a", "{h}b", "k1", "k2", "k3"}, counters: []string{"{h}n", "n1"}}
	const conns, steps = 24, 150
	r.hist = make([][]owEvent, conns)
	var wg sync.WaitGroup
	for id := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.client(in.Addr(), id, steps, []string{"a", "b"}[id%2]); err != nil {
				t.Errorf("conn %d: %v", id, err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	c, err := dialRESP(in.Addr())
	require.NoError(t, err)
	defer c.close()
	_, err = c.do([][]string{{"AUTH", "a", "pw"}}, false)
	require.NoError(t, err)
	final := map[string]string{}
	for _, k := range r.counters {
		rs := invSettled(t, c, [][]string{{"GET", k}})
		final[k] = rs[0].s
	}
	if bad := r.check(lin, final); len(bad) > 0 {
		t.Fatalf("%d invariants broken:\n%s", len(bad), strings.Join(bad[:min(len(bad), 20)], "\n"))
	}
}

func TestOwnWritesUnderBatchingStress(t *testing.T) {
	for _, lin := range []bool{false, true} {
		for _, hot := range []bool{false, true} {
			t.Run(fmt.Sprintf("linearizable=%v/hot=%v", lin, hot), func(t *testing.T) {
				runOwnWrites(t, lin, hot)
			})
		}
	}
}
