package main

// A stateful differential test that goes where diff_test.go's does not: its
// pipelines run on across MULTI, EXEC, WATCH and DISCARD (whole
// transactions, WATCH to EXEC, in one write), the second connection sends
// transactions of its own and switches to RESP3, values of 70 and 300 KiB
// go through, and errors compare by their whole text (diff_test.go compares
// their code), in EXEC's reply too. It keeps to diff_test.go's generator
// and to the deliberate differences listed there; the gateway runs on memkv
// and on one Redis shard (so no transaction spans shards), each with and
// without the caching tier. DIFF_SEEDS=n runs n seeds per variant instead
// of 6, DIFF_SEED=s that one seed alone (300 passed per variant).

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// genState is the part of diffGen's model of connection A that the
// generator reads; a pipeline is generated against a prediction of it.
type genState struct {
	multi, bWrote, aborted bool
	watched                []string
	queued                 [][]string
	txShard                int
}

func (g *diffGen) state() genState {
	return genState{g.multi, g.bWrote, g.aborted, slices.Clone(g.watched), slices.Clone(g.queued), g.txShard}
}

func (g *diffGen) setState(s genState) {
	g.multi, g.bWrote, g.aborted, g.watched, g.queued, g.txShard = s.multi, s.bWrote, s.aborted, s.watched, s.queued, s.txShard
}

// predict moves the model past c as if Redis had answered what it answers
// to a command of its shape (observe then follows the real replies).
func (g *diffGen) predict(c []string) {
	up, n := strings.ToUpper(c[0]), len(c)
	r := rval{typ: '+', s: "OK"}
	spec, known := commands[up]
	switch {
	case !known || !arityFits(spec.arity, n):
		r = rval{typ: '-', s: "ERR"}
	case g.multi && !txControl[up]:
		r.s = "QUEUED"
	case up == "MULTI" && (g.multi || n != 1), up == "EXEC" && !g.multi, up == "DISCARD" && (!g.multi || n != 1),
		up == "WATCH" && (g.multi || n < 2), up == "UNWATCH" && n != 1:
		r = rval{typ: '-', s: "ERR"}
	case up == "EXEC":
		r = rval{typ: '*'}
	}
	g.observe(c, r)
}

// exactReply is sameReply with errors compared by their whole text, in
// EXEC's reply too (its elements as the replies to queued, when given).
func exactReply(cmd []string, queued [][]string, want, got rval) string {
	if want.typ == '-' && got.typ == '-' {
		if want.s != got.s {
			return fmt.Sprintf("redis -%q, gateway -%q", want.s, got.s)
		}
		return ""
	}
	if strings.EqualFold(cmd[0], "EXEC") && want.typ == '*' && got.typ == '*' && !want.null && !got.null {
		if len(want.elem) != len(got.elem) {
			return fmt.Sprintf("redis %v, gateway %v", want, got)
		}
		for i := range want.elem {
			q := []string{"(queued)"} // B's transactions: data commands only
			if queued != nil {
				q = queued[i]
			}
			if d := exactReply(q, nil, want.elem[i], got.elem[i]); d != "" {
				return fmt.Sprintf("element %d (%s): %s", i, quoteCmd(q), d)
			}
		}
		return ""
	}
	return sameReply(cmd, want, got)
}

// doExact sends cmds to both servers of p in one write and compares the
// replies with exactReply; g, if not nil, follows them (connection A).
func (p *diffPair) doExact(cmds [][]string, g *diffGen) string {
	want, got, werr, gerr := p.both(cmds, cmds, false)
	if werr != nil {
		return fmt.Sprintf("redis: %v", werr)
	}
	if gerr != nil {
		return fmt.Sprintf("gateway: %v after %d replies", gerr, len(got))
	}
	for i, c := range cmds {
		var queued [][]string
		if g != nil && strings.EqualFold(c[0], "EXEC") && len(g.queued) == len(want[i].elem) {
			queued = g.queued
		}
		if d := exactReply(c, queued, want[i], got[i]); d != "" {
			return fmt.Sprintf("%s: %s", quoteCmd(c), d)
		}
		if g != nil {
			g.observe(c, want[i])
		}
	}
	return ""
}

// noReturn keeps connection B's write c of a key A watches, on Redis
// shards, from bringing the key back to a state it had at WATCH: there a
// key that another connection brings back to its state at WATCH (deleted
// again, or incremented and decremented by as much) does not abort EXEC, as
// such a rewrite with the same value does not (redistx.go), where Redis's
// does. Such a write becomes a SET of a new value. A's own writes need
// none of it: the gateway sees them, and they abort EXEC as in Redis
// (tx_ownwrite.go).
func (g *diffGen) noReturn(c []string) []string {
	if g.shardOf == nil || len(g.watched) == 0 || len(c) < 2 {
		return c
	}
	switch strings.ToUpper(c[0]) {
	case "SET", "MSET", "DEL", "UNLINK", "INCR", "DECR", "INCRBY", "DECRBY":
		return g.changing([]string{"SET", c[1], ""})
	}
	return c
}

// extra is a command diffGen does not make: a multi-key command of many
// keys (repeated), a name in odd case or with a NUL byte, an empty name.
func (g *diffGen) extra() []string {
	many := func(name string, pairs bool) []string {
		c := []string{name}
		for range 20 + g.r.IntN(300) {
			c = append(c, g.key())
			if pairs {
				c = append(c, g.value())
			}
		}
		return c
	}
	switch g.r.IntN(8) {
	case 0:
		return many("MGET", false)
	case 1:
		return many(g.pick([]string{"DEL", "EXISTS", "unlink"}), false)
	case 2:
		return many("MSET", true)
	case 3:
		return []string{g.pick([]string{"", "GET\x00", "gEt", "G", "GETX", "\r\n"}), g.key()}
	case 4:
		return []string{g.pick([]string{"eCHo", "PiNg"}), g.value()}
	case 5:
		ex := g.pick([]string{"ex 100", "Px 100000", "eX 1000"}) // none lapses during a run
		unit, n, _ := strings.Cut(ex, " ")
		return []string{"SET", g.key(), g.value(), unit, n, g.pick([]string{"nX", "Xx", "XX"})}
	case 6:
		return []string{"INCRBY", g.key(), g.pick([]string{"-9223372036854775808", "9223372036854775807", " 1", "1 ", "\x001", "0x10", "1e3"})}
	}
	return []string{"MSET", g.key(), g.value(), g.key()}
}

// inMulti is a command that MULTI refuses while queuing (failing the
// transaction or not), or one that fails only at EXEC.
func (g *diffGen) inMulti() []string {
	k := g.key()
	cmds := [][]string{
		{"DISCARD", "x"}, {"MULTI", "x"}, {"MULTI"}, {"WATCH"}, {"WATCH", k}, {"UNWATCH", "x"}, {"EXEC", "x"},
		{"GET"}, {"SET", k}, {"NOSUCH", k}, {"MSET", k}, {"PING", "a", "b"}, {"INCR", k, "x"},
		{"MSET", k, "v", k}, {"INCRBY", k, "x"}, {"SET", k, "v", "EX", "0"}, {"SET", k, "v", "NX", "XX"},
		{"CONFIG", "NOSUCH"}, {"COMMAND", "COUNT", "x"}, {"UNWATCH"},
	}
	return cmds[g.r.IntN(len(cmds))]
}

// bigValue is a value of about n bytes that differs from seed to seed.
func bigValue(r *rand.Rand, n int) string {
	b := make([]byte, n+r.IntN(64))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return string(b)
}

// runStateSeed runs one seed: connection A's pipelines, generated against
// the predicted state, and connection B's writes (alone or in a
// transaction, of watched keys while A watches one). It returns the first
// difference, with the commands before it, or "".
func runStateSeed(redisAddr, gwAddr string, seed uint64, steps int, shardOf func(string) int) string {
	g := &diffGen{r: rand.New(rand.NewPCG(seed, 0x5deece66d)), tx: seed%4 != 3, shardOf: shardOf, txShard: -1}
	prefix := fmt.Sprintf("s%d:", seed)
	if g.tx {
		prefix = fmt.Sprintf("{s%d}", seed)
	}
	for _, k := range []string{"a", "b", "c", "\x00k", "\r\n"} {
		g.keys = append(g.keys, prefix+k)
	}
	a, err := dialPair(redisAddr, gwAddr)
	if err != nil {
		return err.Error()
	}
	defer a.close()
	b, err := dialPair(redisAddr, gwAddr)
	if err != nil {
		return err.Error()
	}
	defer b.close()
	reset := [][]string{append([]string{"DEL"}, g.keys...)} // the keys of an earlier run's seed
	if _, err := b.redis.do(reset, false); err != nil {
		return err.Error()
	}
	if _, err := b.gw.do(reset, false); err != nil {
		return err.Error()
	}
	var history []string
	fail := func(d string) string {
		return fmt.Sprintf("seed %d: %s\nafter:\n  %s", seed, d, strings.Join(history[max(0, len(history)-diffHistory):], "\n  "))
	}
	note := func(who string, cmds [][]string) {
		for _, c := range cmds {
			history = append(history, who+quoteCmd(c))
		}
		if len(cmds) > 1 {
			history = append(history, "   (one pipeline)")
		}
	}
	for range steps {
		if g.r.IntN(8) == 0 { // connection B
			var cmds [][]string
			switch n := g.r.IntN(10); {
			case n == 0:
				cmds = [][]string{{"HELLO", g.pick([]string{"2", "3"})}}
			case n < 4 && g.tx: // its keys share a shard
				cmds = [][]string{{"MULTI"}}
				for range 1 + g.r.IntN(3) {
					cmds = append(cmds, g.otherWrite())
				}
				cmds = append(cmds, []string{"EXEC"})
			default:
				cmds = [][]string{g.otherWrite()}
			}
			if cmds[0][0] != "HELLO" {
				g.bWrote = g.bWrote || len(g.watched) > 0
			}
			note("B: ", cmds)
			if d := b.doExact(cmds, nil); d != "" {
				return fail(d)
			}
			continue
		}
		saved := g.state()
		var cmds [][]string
		if g.r.IntN(30) == 0 && !(len(g.watched) > 0 && g.bWrote) { // large values
			k := g.key()
			if len(g.watched) > 0 {
				k = g.pick(g.watched)
			}
			cmds = append(cmds, []string{"SET", k, bigValue(g.r, []int{70 << 10, 300 << 10}[g.r.IntN(2)])},
				[]string{"GET", k}, append([]string{"MGET", k}, g.keyList(1)...))
		}
		for range 1 + g.r.IntN(10) {
			c := g.next()
			if len(g.watched) == 0 && g.r.IntN(12) == 0 {
				c = g.extra()
			} else if g.multi && g.r.IntN(6) == 0 {
				c = g.inMulti()
			}
			if n := g.r.IntN(20); n == 0 && g.multi { // a run of queued writes, past max_pipeline at times
				for range 1 + g.r.IntN(140) {
					cmds = append(cmds, g.write())
				}
			}
			cmds = append(cmds, c)
			g.predict(c)
			if strings.EqualFold(c[0], "QUIT") {
				break
			}
		}
		g.setState(saved)
		note("A: ", cmds)
		if d := a.doExact(cmds, g); d != "" {
			return fail(d)
		}
		if strings.EqualFold(cmds[len(cmds)-1][0], "QUIT") {
			if err := a.redial(); err != nil {
				return err.Error()
			}
		}
	}
	return ""
}

func TestDifferentialState(t *testing.T) {
	seeds, steps := uint64(6), 120
	if v, err := strconv.Atoi(os.Getenv("DIFF_SEEDS")); err == nil {
		seeds = uint64(v)
	}
	if testing.Short() {
		seeds = 4
	}
	from := uint64(0)
	if v, err := strconv.ParseUint(os.Getenv("DIFF_SEED"), 10, 64); err == nil {
		from, seeds = v, 1
	}
	rs, shard := startRedis(t), startRedis(t)
	for _, tc := range []struct {
		name  string
		redis bool
		cache int
	}{{"memkv", false, 0}, {"memkv+cache", false, 1000}, {"redis", true, 0}, {"redis+cache", true, 1000}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{HTTPAddr: "-", CacheCapacity: tc.cache}
			if tc.redis {
				cfg.Backend = BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2}
			}
			in := startGateway(t, cfg)
			var shardOf func(string) int
			if tc.redis {
				shardOf = in.gw.shard
			}
			var diffs []string
			for seed := from; seed < from+seeds; seed++ {
				if d := runStateSeed(rs.addr, in.Addr(), seed, steps, shardOf); d != "" {
					diffs = append(diffs, d)
				}
			}
			if len(diffs) > 0 {
				t.Fatalf("%d of %d seeds differ:\n%s", len(diffs), seeds, strings.Join(diffs[:min(len(diffs), 6)], "\n\n"))
			}
		})
	}
}
