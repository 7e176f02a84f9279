package main

// Differential test: the same random sequences of the commands the gateway
// implements go to a real redis-server and to the gateway on memkv (and on
// Redis shards: diff_shards_test.go), over raw connections, and every reply
// must match (sameReply: type and value; errors by their code).
//
// Left out or compared loosely, because the README says the gateway differs
// there on purpose:
//   - commands and options it does not implement (SET KEEPTTL/GET/EXAT,
//     SELECT of another db, CONFIG SET, KVSCAN, which Redis lacks);
//   - the content of INFO, COMMAND, CONFIG GET, CLIENT ID/INFO and HELLO's
//     map (the server's own; compared by shape, HELLO by "proto");
//   - AUTH pass without a user: tenants without a password accept any, where
//     Redis refuses AUTH when no password is set (AUTH default pass is
//     generated instead, which both accept);
//   - transactions are validated on every key they read, and reads after
//     WATCH come from the transaction's snapshot: while a key is watched,
//     writes outside MULTI (by either connection) are of watched keys only,
//     after the other connection's the first reads nothing outside MULTI
//     (on memkv: on Redis shards reads are live);
//   - the keys of a transaction must share a shard: on memkv a seed's keys
//     share a {hash tag}; on Redis shards (diff_shards_test.go) they lie on
//     both shards, and a WATCH or EXEC across them must answer CROSSSLOT
//     while Redis gets a stand-in (PING for WATCH, DISCARD for EXEC);
//   - on Redis shards a watched key that the other connection brings back
//     to its state at WATCH (rewritten with the same value and expiry,
//     deleted again, incremented back) does not abort EXEC (the
//     connection's own writes do, as in Redis: tx_ownwrite.go): there,
//     while A watches, B's writes of a watched key are SETs of a value not
//     used before (otherWrite, noReturn in diff_state_test.go), since a DEL,
//     or increments that add up to 0, could bring one back; A's own writes
//     of a watched key are of any kind;
//   - connection commands (AUTH, HELLO, SELECT, CLIENT) inside MULTI abort
//     the transaction, which Redis queues: not generated inside MULTI;
//   - malformed RESP closes the connection (TestRESPLengthsAsRedis and
//     FuzzInlineMatchesRedis compare it): the test sends well-formed
//     commands only;
//   - CLIENT SETINFO: Redis 7.0 lacks it;
//   - expiries short enough to lapse during a run (none is generated).
//
// Every seed runs 150 steps, from one or two connections, single commands
// and pipelines (some longer than max_pipeline); odd seeds go through the
// caching tier. DIFF_SEEDS=n runs n seeds instead of 80 (and of 12 per
// variant on Redis shards); FuzzDifferentialRedis (diff_fuzz_test.go)
// explores other seeds, on each of the four gateways.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// diffPair is one connection to Redis and one to the gateway, driven alike.
type diffPair struct {
	redisAddr, gwAddr string
	redis, gw         *respConn
}

func dialPair(redisAddr, gwAddr string) (*diffPair, error) {
	p := &diffPair{redisAddr: redisAddr, gwAddr: gwAddr}
	return p, p.redial()
}

func (p *diffPair) redial() error {
	p.close()
	var err error
	if p.redis, err = dialRESP(p.redisAddr); err != nil {
		return err
	}
	p.gw, err = dialRESP(p.gwAddr)
	return err
}

func (p *diffPair) close() {
	if p.redis != nil {
		p.redis.close()
	}
	if p.gw != nil {
		p.gw.close()
	}
	p.redis, p.gw = nil, nil
}

// do sends cmds to both and returns Redis's replies, or what differs. If g
// is not nil, it follows each of Redis's replies before the next is
// compared (EXEC's elements compare as their queued commands' replies).
func (p *diffPair) do(cmds [][]string, g *diffGen) ([]rval, string) {
	inline := g != nil && g.r.IntN(8) == 0
	want, got, werr, gerr := p.both(cmds, cmds, inline)
	if werr != nil {
		return nil, fmt.Sprintf("redis: %v", werr)
	}
	if gerr != nil {
		return nil, fmt.Sprintf("gateway: %v after %d replies", gerr, len(got))
	}
	for i, c := range cmds {
		d := ""
		if strings.EqualFold(c[0], "EXEC") && g != nil && want[i].typ == '*' && got[i].typ == '*' &&
			len(want[i].elem) == len(g.queued) && len(got[i].elem) == len(g.queued) {
			for j, q := range g.queued {
				if d = sameReply(q, want[i].elem[j], got[i].elem[j]); d != "" {
					d = fmt.Sprintf("EXEC's reply to %s: %s", quoteCmd(q), d)
					break
				}
			}
		} else {
			d = sameReply(c, want[i], got[i])
		}
		if d != "" {
			return nil, fmt.Sprintf("%s: %s", quoteCmd(c), d)
		}
		if g != nil {
			g.observe(c, want[i])
		}
	}
	return want, ""
}

// both sends rcmds to Redis and gcmds to the gateway, each in one write,
// before it reads either's replies: the two servers answer at the same time,
// a step waits for the slower one only.
func (p *diffPair) both(rcmds, gcmds [][]string, inline bool) (want, got []rval, werr, gerr error) {
	werr = p.redis.send(rcmds, inline)
	gerr = p.gw.send(gcmds, inline)
	if werr == nil {
		want, werr = p.redis.recv(len(rcmds))
	}
	if gerr == nil {
		got, gerr = p.gw.recv(len(gcmds))
	}
	return want, got, werr, gerr
}

func quoteCmd(c []string) string {
	q := make([]string, len(c))
	for i, a := range c {
		q[i] = fmt.Sprintf("%.40q", a)
	}
	return strings.Join(q, " ")
}

// diffGen generates one seed's commands and follows the connection state
// they leave (from Redis's replies) so as to keep to what the gateway
// promises to match.
type diffGen struct {
	r       *rand.Rand
	keys    []string
	tx      bool // keys share a hash tag: transactions are generated
	multi   bool
	watched []string   // keys WATCHed by connection A
	bWrote  bool       // B wrote a watched key since A's WATCH
	queued  [][]string // A's commands queued since MULTI
	// On Redis shards (diff_shards_test.go): the gateway's shard of a key,
	// nil on memkv; the shard A's transaction is bound to (-1: none); a
	// queued command failed (EXEC answers EXECABORT); a counter for values
	// that differ from every earlier one.
	shardOf func(string) int
	txShard int
	aborted bool
	uniq    int
}

var (
	diffValues = []string{"", "0", "1", "-1", "42", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "01", "+1", "-0", " 1", "1.5", "abc", "\x00\r\n\xff$*", strings.Repeat("v", 300), strings.Repeat("w", 10000)}
	diffInts = []string{"1", "0", "-1", "100", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "abc", "", "+5", "01", "1.5", "-0"}
	diffEX = []string{"-1", "0", "100", "abc", "9223372036854775", "9223372036854775807",
		"8000000000", "18446744074", "9223372036854", "1.5", ""}
	diffPX = []string{"-1", "0", "100000", "9223372036854775807", "9223372036854775000", "9223372036854", "abc"}
)

func (g *diffGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *diffGen) key() string { return g.pick(g.keys) }

func (g *diffGen) value() string {
	if g.r.IntN(5) == 0 {
		return fmt.Sprint(g.r.Int64N(2000) - 1000)
	}
	return g.pick(diffValues)
}

func (g *diffGen) keyList(min int) []string {
	ks := make([]string, min+g.r.IntN(3))
	for i := range ks {
		ks[i] = g.key()
	}
	return ks
}

// write is a random write command.
func (g *diffGen) write() []string {
	k := g.key()
	switch g.r.IntN(8) {
	case 0, 1:
		return g.set(k)
	case 2:
		c := []string{"MSET"}
		for range 1 + g.r.IntN(3) {
			c = append(c, g.key(), g.value())
		}
		if g.r.IntN(8) == 0 {
			c = c[:len(c)-1] // odd
		}
		return c
	case 3:
		return append([]string{g.pick([]string{"DEL", "UNLINK"})}, g.keyList(1)...)
	case 4:
		return []string{g.pick([]string{"INCR", "DECR"}), k}
	default:
		return []string{g.pick([]string{"INCRBY", "DECRBY", "incrby"}), k, g.pick(diffInts)}
	}
}

func (g *diffGen) set(k string) []string {
	c := []string{g.pick([]string{"SET", "set"}), k, g.value()}
	ex := "" // EX or PX: Redis takes the last of repeated ones, refuses both
	for range g.r.IntN(3) {
		switch g.r.IntN(6) {
		case 0:
			c = append(c, g.pick([]string{"NX", "nx"}))
		case 1:
			c = append(c, g.pick([]string{"XX", "xx"}))
		case 2:
			if ex != "PX" {
				ex = "EX"
				c = append(c, g.pick([]string{"EX", "ex"}), g.pick(diffEX))
			}
		case 3:
			if ex != "EX" {
				ex = "PX"
				c = append(c, "PX", g.pick(diffPX))
			}
		case 4:
			c = append(c, g.pick([]string{"EX", "PX"})) // no number
		default:
			c = append(c, "BOGUS")
		}
	}
	return c
}

// read is a random read command.
func (g *diffGen) read() []string {
	switch g.r.IntN(4) {
	case 0, 1:
		return []string{g.pick([]string{"GET", "get"}), g.key()}
	case 2:
		return append([]string{"MGET"}, g.keyList(1)...)
	default:
		return append([]string{"EXISTS"}, g.keyList(1)...)
	}
}

// odd is a command with a wrong arity, an unknown one, or a keyless one.
func (g *diffGen) odd() []string {
	k := g.key()
	cmds := [][]string{
		{"GET"}, {"GET", k, k}, {"SET", k}, {"INCR"}, {"INCRBY", k}, {"INCR", k, "1"}, {"DEL"},
		{"MGET"}, {"EXISTS"}, {"MSET", k}, {"ECHO"}, {"ECHO", "a", "b"}, {"FOOBAR", k},
		{"PING"}, {"PING", "hi\x00"}, {"PING", "a", "b"}, {"ECHO", g.value()},
		{"EXEC"}, {"DISCARD"}, {"EXEC", "x"}, {"MULTI", "x"}, {"DISCARD", "x"}, {"UNWATCH", "x"},
		{"WATCH"}, {"RESET", "x"},
		{"COMMAND", "COUNT"}, {"COMMAND"}, {"CONFIG", "GET"}, {"INFO", "server"}, {"CONFIG", "GET", "maxmemory"},
	}
	return cmds[g.r.IntN(len(cmds))]
}

// conn is a connection command (not generated inside MULTI).
func (g *diffGen) conn() []string {
	cmds := [][]string{
		{"HELLO", "2"}, {"HELLO", "3"}, {"HELLO"}, {"HELLO", "4"}, {"HELLO", "abc"}, {"HELLO", "+3"},
		{"HELLO", "3", "SETNAME", "n1"}, {"HELLO", "2", "AUTH", "default", "pw"}, {"HELLO", "3", "BOGUS"},
		{"HELLO", "3", "AUTH", "nosuch", "pw"},
		{"AUTH", "default", "pw"}, {"AUTH", "a", "b", "c"}, {"AUTH", "nosuch", "pw"},
		{"CLIENT", "SETNAME", "n2"}, {"CLIENT", "GETNAME"}, {"CLIENT", "ID"}, {"CLIENT", "NOSUCH"},
		{"CLIENT", "SETNAME", "a b"}, {"CLIENT", "SETNAME"}, {"CLIENT", "SETNAME", ""},
		{"SELECT", "0"}, {"SELECT", "abc"}, {"SELECT"},
	}
	return cmds[g.r.IntN(len(cmds))]
}

// next is connection A's next command.
func (g *diffGen) next() []string {
	n := g.r.IntN(100)
	noReads := len(g.watched) > 0 && g.bWrote && !g.multi && g.shardOf == nil // Redis shards read live
	switch {
	case n < 35:
		return g.watchedWrite(g.multi)
	case n < 65 && !noReads:
		return g.read()
	case n < 78:
		return g.odd()
	case n < 86 && !g.multi:
		return g.conn()
	case n < 98 && g.tx:
		switch g.r.IntN(5) {
		case 0:
			return append([]string{"WATCH"}, g.keyList(1)...)
		case 1:
			return []string{"UNWATCH"}
		case 2:
			return []string{"MULTI"}
		case 3:
			return []string{"DISCARD"}
		}
		return []string{"EXEC"}
	case n < 99:
		return []string{"RESET"}
	}
	return []string{"QUIT"}
}

// watchedWrite is a write, of a watched key while A watches one (outside
// MULTI): a write of another key after WATCH, by either connection, would
// make the gateway's EXEC fail where Redis's does not, if the transaction
// reads that key (it validates every key it reads, at the snapshot taken
// at WATCH). Connection B's go through otherWrite.
func (g *diffGen) watchedWrite(queued bool) []string {
	c := g.write()
	if len(g.watched) == 0 || queued {
		return c
	}
	w := g.pick(g.watched)
	switch strings.ToUpper(c[0]) {
	case "MSET":
		return []string{"SET", w, g.value()}
	case "DEL", "UNLINK":
		return []string{c[0], w}
	}
	c[1] = w
	return c
}

// otherWrite is connection B's write (a watchedWrite): on Redis shards,
// while A watches a key, a SET of a new value (noReturn). A's own writes
// of a watched key abort its EXEC whatever they write, as in Redis.
func (g *diffGen) otherWrite() []string {
	return g.noReturn(g.watchedWrite(false))
}

// observe follows connection A's state from Redis's reply to cmd.
func (g *diffGen) observe(cmd []string, r rval) {
	if g.multi && r.typ == '+' && r.s == "QUEUED" {
		g.queued = append(g.queued, cmd)
		return
	}
	up := strings.ToUpper(cmd[0])
	if g.multi && r.typ == '-' && !(up == "MULTI" && len(cmd) == 1 || up == "WATCH" && len(cmd) > 1) {
		g.aborted = true // refused while queuing (Redis flags the transaction)
	}
	end := func() {
		g.multi, g.watched, g.bWrote, g.queued, g.aborted, g.txShard = false, nil, false, nil, false, -1
	}
	switch up {
	case "MULTI":
		if r.typ == '+' {
			g.multi, g.queued = true, nil
		}
	case "EXEC", "DISCARD": // EXEC in MULTI ends it, and a refused one (EXECABORT) the WATCHes
		if g.multi && (r.typ != '-' || up == "EXEC") || r.errCode() == "EXECABORT" {
			end()
		}
	case "WATCH":
		if r.typ == '+' {
			g.watched = append(g.watched, cmd[1:]...)
			if g.txShard < 0 && g.shardOf != nil {
				g.txShard = g.shardOf(cmd[1])
			}
		}
	case "UNWATCH":
		if !g.multi && r.typ == '+' {
			g.watched, g.bWrote, g.txShard = nil, false, -1
		}
	case "RESET", "QUIT":
		if r.typ == '+' {
			end()
		}
	}
}

// runDiffSeed runs one seed's sequence of steps against both servers and
// returns the first difference ("" if none), with the commands before it.
var diffHistory = 12

func runDiffSeed(redisAddr, gwAddr string, seed uint64, steps int, shardOf func(string) int) string {
	g := &diffGen{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), tx: seed%4 != 3, shardOf: shardOf, txShard: -1}
	prefix := fmt.Sprintf("d%d:", seed)
	if g.tx {
		prefix = fmt.Sprintf("{d%d}", seed)
	}
	for _, k := range []string{"a", "b", "c", "\x00k"} {
		g.keys = append(g.keys, prefix+k)
	}
	if !g.tx {
		g.keys = append(g.keys, "") // the empty key maps to a shard of its own
	}
	g.spreadKeys(seed)
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
	// The seed's keys are deleted on each server, the replies not compared:
	// FuzzDifferentialRedis may have run the seed before, on another gateway.
	del := [][]string{append([]string{"DEL"}, g.keys...)}
	if _, _, werr, gerr := b.both(del, del, false); werr != nil || gerr != nil {
		return fmt.Sprintf("reset: redis %v, gateway %v", werr, gerr)
	}
	var history []string
	fail := func(d string) string {
		return fmt.Sprintf("seed %d: %s\nafter:\n  %s", seed, d, strings.Join(history[max(0, len(history)-diffHistory):], "\n  "))
	}
	for range steps {
		if g.r.IntN(10) == 0 {
			c := g.otherWrite()
			g.bWrote = len(g.watched) > 0
			history = append(history, "B: "+quoteCmd(c))
			if _, d := b.do([][]string{c}, nil); d != "" {
				return fail(d)
			}
			continue
		}
		// A pipeline of up to 6 commands, sent in one write. The model
		// follows the replies, so a pipeline ends after a command that
		// changes connection state.
		var cmds [][]string
		if g.r.IntN(40) == 0 { // over max_pipeline: run in chunks
			for range 130 + g.r.IntN(70) {
				if len(g.watched) > 0 && g.bWrote && !g.multi || g.r.IntN(2) == 0 {
					cmds = append(cmds, g.watchedWrite(g.multi))
				} else {
					cmds = append(cmds, g.read())
				}
			}
		}
		var cross []string // a WATCH or EXEC across shards, sent after the pipeline
		for range 1 + g.r.IntN(6) {
			c := g.next()
			if g.crossShard(c, cmds) {
				cross = c
				break
			}
			cmds = append(cmds, c)
			if up := strings.ToUpper(c[0]); slices.Contains([]string{"MULTI", "EXEC", "DISCARD", "WATCH",
				"UNWATCH", "RESET", "QUIT"}, up) {
				break
			}
		}
		for _, c := range cmds {
			history = append(history, "A: "+quoteCmd(c))
		}
		if len(cmds) > 1 {
			history = append(history, "   (one pipeline)")
		}
		if len(cmds) > 0 {
			if _, d := a.do(cmds, g); d != "" {
				return fail(d)
			}
		}
		if cross != nil && g.crossShard(cross, nil) {
			history = append(history, "A: "+quoteCmd(cross)+" (across shards: Redis gets "+crossStandIn(cross)[0]+")")
			if d := a.doCross(cross, g); d != "" {
				return fail(d)
			}
			continue
		} else if cross != nil { // the pipeline's commands were not all queued
			history = append(history, "A: "+quoteCmd(cross))
			if _, d := a.do([][]string{cross}, g); d != "" {
				return fail(d)
			}
			cmds = append(cmds, cross)
		}
		if len(cmds) == 0 {
			continue
		}
		if strings.EqualFold(cmds[len(cmds)-1][0], "QUIT") {
			if err := a.redial(); err != nil {
				return err.Error()
			}
		}
	}
	return ""
}

func TestDifferentialRedis(t *testing.T) {
	rs := startRedis(t)
	// Odd seeds go through the caching tier (reads served from it, writes
	// invalidating it).
	gws := []*instance{startGateway(t, Config{HTTPAddr: "-"}), startGateway(t, Config{HTTPAddr: "-", CacheCapacity: 1000})}
	seeds, steps := uint64(80), 150
	if v, err := strconv.Atoi(os.Getenv("DIFF_SEEDS")); err == nil {
		seeds = uint64(v)
	}
	if testing.Short() {
		seeds = 16
	}
	var diffs []string
	for seed := range seeds {
		if d := runDiffSeed(rs.addr, gws[seed%2].Addr(), seed, steps, nil); d != "" {
			diffs = append(diffs, d)
		}
	}
	if len(diffs) > 0 {
		t.Fatalf("%d of %d seeds differ:\n%s", len(diffs), seeds, strings.Join(diffs[:min(len(diffs), 10)], "\n\n"))
	}
}
