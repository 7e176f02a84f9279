package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// cmdKind says how a command is scheduled within a pipeline.
type cmdKind uint8

const (
	kindConn  cmdKind = iota + 1 // changes or reads connection state: runs alone, in order
	kindRead                     // reads keys: may run with other commands that write none of them
	kindWrite                    // writes keys: may run with commands that touch none of them
	kindLocal                    // answered by the gateway, no keys (PING, INFO): runs anywhere (but inOrder)
)

// cmdSpec describes a command: arity as Redis gives it (n exact, -n at least
// n, counting the name), scheduling kind, key positions and the handler.
type cmdSpec struct {
	arity  int
	kind   cmdKind
	layout keyLayout // where the keys are among the args (keys, hasKeys)
	fn     func(ctx context.Context, s *session, args [][]byte) any
	// check reads the arguments of a data command that can be malformed
	// past its arity (SET's options, INCRBY's increment, MSET's pairs,
	// KVSCAN's LIMIT and backend): call answers its error before admission,
	// as Redis answers it whatever the load, and hands what it read to
	// run, which it calls in place of fn (fn checks, then runs). Checked
	// after admission, such a command answered -OVERLOADED or -THROTTLED
	// under load, which a client retries, where it can never succeed.
	check func(g *Gateway, args [][]byte) (cmdArgs, respErr)
	run   func(ctx context.Context, s *session, args [][]byte, ca cmdArgs) any
	// subs: the arity of each subcommand the gateway serves (upper-case
	// name; nil for a command without subcommands). As in Redis, a command
	// that names an unknown subcommand, or gives one the wrong number of
	// arguments, is refused before it runs or is queued.
	subs map[string]int

	// Set by init from the table below.
	name  string          // canonical (upper-case) name
	idx   int             // index in specs, for per-command state without a map lookup
	nkeys func(n int) int // number of keys of a command of n args (name included)
	// bounded: every wait of the command is bounded without a request context
	// (the batcher's flush timeout, shed's queue deadline), so it runs on a
	// context without deadline or cancellation: no timer per command, and the
	// batcher may run a flush on the caller's goroutine.
	bounded bool
	// inOrder: a command of kindLocal that reads what the commands before
	// it change (INFO's counters) runs in order, as a kindConn command does:
	// after the commands before it, before those after it.
	inOrder bool
}

// cmdArgs is what a command's check read from its arguments, for its run.
type cmdArgs struct {
	nx, xx bool          // SET's NX and XX
	ttl    time.Duration // SET's EX or PX
	n      int64         // INCRBY's and DECRBY's delta, KVSCAN's limit
}

var (
	commands map[string]*cmdSpec
	specs    []*cmdSpec // by idx
)

// admitted reports whether shed admits the command (so that it has a shed
// priority): a data command, or WATCH (which the backend may observe).
func (c *cmdSpec) admitted() bool {
	return c.kind == kindRead || c.kind == kindWrite || c.name == "WATCH"
}

// checkArgs is c's check of args, if it has one.
func (c *cmdSpec) checkArgs(g *Gateway, args [][]byte) (cmdArgs, respErr) {
	if c.check == nil {
		return cmdArgs{}, ""
	}
	return c.check(g, args)
}

// exec runs c on args, which passed its check (ca: what the check read).
func (c *cmdSpec) exec(ctx context.Context, s *session, args [][]byte, ca cmdArgs) any {
	if c.run != nil {
		return c.run(ctx, s, args, ca)
	}
	return c.fn(ctx, s, args)
}

// keyLayout says which arguments of a command are keys: args[1],
// args[1+step], ... below end (0: up to the last argument). The zero layout
// has no keys.
type keyLayout struct{ step, end int }

var (
	noKeys    = keyLayout{}
	keyFirst  = keyLayout{step: 1, end: 2} // GET k, SET k v [options]
	keysAll   = keyLayout{step: 1}         // MGET k1 k2 ...
	keysPairs = keyLayout{step: 2}         // MSET k1 v1 k2 v2 ...
	// keysRange is a KVSCAN's bounds, taken as its keys: the ACL check then
	// confines the range to an allowed prefix (every key between two keys
	// with prefix p has prefix p).
	keysRange = keyLayout{step: 1, end: 3}
)

// span returns the bounds and stride of the keys among args.
func (l keyLayout) span(args [][]byte) (from, to, step int) {
	if l.step == 0 {
		return 0, 0, 1
	}
	to = len(args)
	if l.end > 0 {
		to = min(l.end, to)
	}
	return 1, to, l.step
}

// strings returns copies of the keys among args.
func (l keyLayout) strings(args [][]byte) []string {
	from, to, step := l.span(args)
	ks := make([]string, 0, (max(to-from, 0)+step-1)/step)
	for i := from; i < to; i += step {
		ks = append(ks, string(args[i]))
	}
	return ks
}

// cost returns a data command's admission cost: its keys, at least 1. A
// KVSCAN's is the pairs it asks for, its LIMIT, as an MGET of as many keys
// (it reads up to that many of each shard, and measured 2-3x the CPU of an
// MGET of as many keys at 100); its two bounds, the keys it names, made a
// scan of 10,000 pairs cost 2. A malformed one costs 1 (it is refused
// before admission, check; its cost only ends a pipeline's run).
func (c *cmdSpec) cost(args [][]byte) int64 {
	if c.name == "KVSCAN" {
		n, _ := scanLimit(args)
		return int64(max(n, 1))
	}
	return int64(max(c.nkeys(len(args)), 1))
}

// hasKeys reports whether the command names keys.
func (c *cmdSpec) hasKeys() bool { return c.layout != noKeys }

// keys returns copies of the keys among a command's args.
func (c *cmdSpec) keys(args [][]byte) []string { return c.layout.strings(args) }

func init() {
	mk := func(arity int, kind cmdKind, layout keyLayout, fn func(context.Context, *session, [][]byte) any) *cmdSpec {
		return &cmdSpec{arity: arity, kind: kind, layout: layout, fn: fn}
	}
	// checked is a command whose check runs before admission (cmdSpec.check).
	checked := func(arity int, kind cmdKind, layout keyLayout,
		check func(*Gateway, [][]byte) (cmdArgs, respErr), run func(context.Context, *session, [][]byte, cmdArgs) any) *cmdSpec {
		fn := func(ctx context.Context, s *session, a [][]byte) any {
			ca, bad := check(s.g, a)
			if bad != "" {
				return bad
			}
			return run(ctx, s, a, ca)
		}
		return &cmdSpec{arity: arity, kind: kind, layout: layout, fn: fn, check: check, run: run}
	}
	commands = map[string]*cmdSpec{
		"PING":    mk(-1, kindLocal, noKeys, cmdPing),
		"ECHO":    mk(2, kindLocal, noKeys, func(_ context.Context, _ *session, a [][]byte) any { return a[1] }),
		"HELLO":   mk(-1, kindConn, noKeys, cmdHello),
		"AUTH":    mk(-2, kindConn, noKeys, cmdAuth),
		"SELECT":  mk(2, kindConn, noKeys, cmdSelect),
		"QUIT":    mk(-1, kindConn, noKeys, func(_ context.Context, s *session, _ [][]byte) any { s.quit = true; return simple("OK") }),
		"RESET":   mk(1, kindConn, noKeys, cmdReset),
		"CLIENT":  mk(-2, kindConn, noKeys, cmdClient),
		"COMMAND": mk(-1, kindLocal, noKeys, cmdCommand),
		"CONFIG":  mk(-2, kindLocal, noKeys, cmdConfig), // CONFIG GET pattern...; other subcommands are refused
		"INFO":    mk(-1, kindLocal, noKeys, cmdInfo),
		"WATCH":   mk(-2, kindConn, noKeys, cmdWatch),
		"UNWATCH": mk(1, kindConn, noKeys, cmdUnwatch),
		"MULTI":   mk(1, kindConn, noKeys, cmdMulti),
		"EXEC":    mk(1, kindConn, noKeys, cmdExec),
		"DISCARD": mk(1, kindConn, noKeys, cmdDiscard),
		"GET":     mk(2, kindRead, keyFirst, cmdGet),
		"KVSCAN":  checked(-3, kindRead, keysRange, checkKVScan, runKVScan),
		"MGET":    mk(-2, kindRead, keysAll, cmdMGet),
		"EXISTS":  mk(-2, kindRead, keysAll, cmdExists),
		"SET":     checked(-3, kindWrite, keyFirst, checkSet, runSet),
		"MSET":    checked(-3, kindWrite, keysPairs, checkMSet, runMSet),
		"DEL":     mk(-2, kindWrite, keysAll, cmdDel),
		"UNLINK":  mk(-2, kindWrite, keysAll, cmdDel),
		"INCR":    mk(2, kindWrite, keyFirst, cmdIncr(1)),
		"DECR":    mk(2, kindWrite, keyFirst, cmdIncr(-1)),
		"INCRBY":  checked(3, kindWrite, keyFirst, checkIncrBy(1), runIncr),
		"DECRBY":  checked(3, kindWrite, keyFirst, checkIncrBy(-1), runIncr),
	}
	// Subcommand arities as Redis 7.2 gives them. CONFIG SET, RESETSTAT
	// and REWRITE are known so that they get the gateway's refusal, which
	// points to /control, rather than "unknown subcommand".
	commands["CLIENT"].subs = map[string]int{"SETNAME": 3, "GETNAME": 2, "SETINFO": 4, "ID": 2, "INFO": 2, "HELP": 2}
	// COMMAND DOCS is refused as Redis before 7 refuses it: redis-cli then
	// takes its help from its own table (an empty map left it with none).
	commands["COMMAND"].subs = map[string]int{"COUNT": 2, "INFO": -2, "LIST": -2, "HELP": 2}
	commands["CONFIG"].subs = map[string]int{"GET": -3, "SET": -4, "RESETSTAT": 2, "REWRITE": 2, "HELP": 2}
	commands["INFO"].inOrder = true
	one := func(int) int { return 1 }
	rest := func(n int) int { return n - 1 }
	counts := map[string]func(int) int{
		"GET": one, "SET": one, "INCR": one, "DECR": one, "INCRBY": one, "DECRBY": one,
		"MGET": rest, "EXISTS": rest, "DEL": rest, "UNLINK": rest,
		"MSET":   func(n int) int { return (n - 1) / 2 },
		"KVSCAN": func(int) int { return 2 },
	}
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, name := range names {
		spec := commands[name]
		spec.name, spec.idx = name, i
		spec.nkeys = counts[name]
		if spec.nkeys == nil {
			spec.nkeys = func(int) int { return 0 }
		}
		spec.bounded = (spec.kind == kindRead || spec.kind == kindWrite) && name != "KVSCAN"
		specs = append(specs, spec)
	}
}

// lookupSpec finds a command by name, in any case, without allocating for a
// name already in upper case or short enough for the stack buffer.
func lookupSpec(name []byte) (*cmdSpec, bool) {
	if spec, ok := commands[string(name)]; ok {
		return spec, true
	}
	if len(name) > 16 {
		spec, ok := commands[strings.ToUpper(string(name))]
		return spec, ok
	}
	var buf [16]byte
	up := buf[:len(name)]
	for i, c := range name {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	spec, ok := commands[string(up)]
	return spec, ok
}

func arityOK(spec *cmdSpec, n int) bool { return arityFits(spec.arity, n) }

// arityFits reports whether n arguments fit arity (n exact, -n at least n).
func arityFits(arity, n int) bool {
	if arity >= 0 {
		return n == arity
	}
	return n >= -arity
}

// errUnknown is Redis's reply to an unknown command: its name and then its
// first arguments, quoted, while they take less than 128 bytes (the last
// one cut there), as Redis's printf formats them.
func errUnknown(args [][]byte) respErr {
	var b strings.Builder
	for _, a := range args[1:] {
		if b.Len() >= 128 {
			break
		}
		n := 128 - b.Len()
		b.WriteString("'")
		b.Write(cPrefix(a, n))
		b.WriteString("' ")
	}
	return respErr(fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", cPrefix(args[0], 128), b.String()))
}

// cString is b as C's printf prints it with %s: up to its first NUL byte.
func cString(b []byte) []byte {
	if i := slices.Index(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// cPrefix is b as printf prints it with %.ns: at most n bytes of cString(b).
func cPrefix(b []byte, n int) []byte {
	b = cString(b)
	return b[:min(len(b), max(n, 0))]
}

// checkSub refuses a subcommand of spec that the gateway does not serve, or
// one with the wrong number of arguments, with Redis's error texts (the
// arity error names the command as "config|get"). It returns nil if args
// pass.
func checkSub(spec *cmdSpec, args [][]byte) any {
	if spec.subs == nil || len(args) < 2 {
		return nil
	}
	sub := asciiUpper(args[1])
	arity, ok := spec.subs[sub]
	if !ok {
		return respErr(fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.", cPrefix(args[1], 128), spec.name))
	}
	if !arityFits(arity, len(args)) {
		return errArity(spec.name + "|" + sub)
	}
	return nil
}

// asciiUpper is b in upper case as Redis's strcasecmp and toupper read
// names: ASCII letters only. strings.ToUpper also maps 'ı' to 'I' and 'ſ'
// to 'S' ("CLIENT ıd" ran CLIENT ID, where Redis knows no such subcommand).
func asciiUpper(b []byte) string { return asciiCase(b, 'a', 'A') }

// asciiLower is b in lower case, ASCII letters only, as Redis's tolower
// reads INFO sections and CONFIG GET patterns (strings.ToLower also maps
// 'İ' to 'i' and the Kelvin sign to 'k').
func asciiLower(b []byte) string { return asciiCase(b, 'A', 'a') }

// asciiCase is b with the 26 letters from from on moved to those from to on.
func asciiCase(b []byte, from, to byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for _, c := range b {
		if c >= from && c < from+26 {
			c = c - from + to
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

func errArity(name string) respErr {
	return respErr("ERR wrong number of arguments for '" + strings.ToLower(name) + "' command")
}

func cmdPing(_ context.Context, _ *session, a [][]byte) any {
	if len(a) > 2 {
		return errArity("ping")
	}
	if len(a) > 1 {
		return a[1]
	}
	return simple("PONG")
}

func cmdCommand(_ context.Context, _ *session, a [][]byte) any {
	if len(a) == 1 {
		return []any{} // clients fall back to their own command tables
	}
	switch asciiUpper(a[1]) {
	case "COUNT":
		return int64(0) // the entries COMMAND answers, as Redis counts its table
	case "INFO":
		return make([]any, len(a)-2) // a null per name, as for a name Redis does not know
	case "LIST":
		if len(a) != 2 && (len(a) != 5 || asciiUpper(cString(a[2])) != "FILTERBY" || // as strcasecmp reads them
			!slices.Contains([]string{"MODULE", "ACLCAT", "PATTERN"}, asciiUpper(cString(a[3])))) {
			return respErr("ERR syntax error")
		}
		return []any{}
	case "HELP":
		return helpReply("COMMAND", commandHelp)
	}
	return respErr("ERR unknown subcommand '" + string(a[1]) + "'. Try COMMAND HELP.")
}

// configValues answers CONFIG GET for the settings tools ask about; timeout
// is idle_timeout's (configValue).
var configValues = [...][2]string{
	{"save", ""}, {"appendonly", "no"}, {"databases", "1"}, {"maxmemory", "0"},
	{"maxmemory-policy", "noeviction"}, {"timeout", ""}, {"cluster-enabled", "no"},
}

// configValue is the value CONFIG GET answers for the setting kv: timeout,
// as Redis's, is the whole seconds after which an idle client is closed (at
// least 1: 0 is never), idle_timeout.
func configValue(s *session, kv [2]string) string {
	if idle := time.Duration(s.g.cfg.Limits.IdleTimeout); kv[0] == "timeout" && idle > 0 {
		return strconv.FormatInt(max(int64(idle/time.Second), 1), 10)
	}
	return kv[1]
}

func cmdConfig(_ context.Context, s *session, a [][]byte) any {
	if sub := asciiUpper(a[1]); sub == "HELP" {
		return helpReply("CONFIG", configHelp)
	} else if sub != "GET" {
		return respErr("ERR CONFIG " + sub + " is not supported by the gateway; use its /control endpoint")
	}
	out := respMap{}
	var seen [len(configValues)]bool // as Redis: a setting two patterns match is one pair (RESP3 map keys are unique)
	for _, p := range a[2:] {
		// As Redis: a pattern without '[', '*' or '?' before any NUL byte is
		// a name, looked up whole and answered as sent; one with them is
		// matched as a C string (up to the NUL).
		name, glob := asciiLower(p), cString(p)
		exact := !bytes.ContainsAny(glob, "[*?")
		for i, kv := range configValues {
			if seen[i] || !(exact && name == kv[0] || !exact && globMatch(glob, kv[0])) {
				continue
			}
			seen[i] = true
			if exact {
				out = append(out, string(p), configValue(s, kv))
			} else {
				out = append(out, kv[0], configValue(s, kv))
			}
		}
	}
	return out
}

func cmdGet(ctx context.Context, s *session, a [][]byte) any {
	var rd *hotReader
	if s.solo { // not a pipeline's GET, which can run beside others of the session
		rd = &s.hot
	}
	// Without the caching tier the key lives no longer than the command (in
	// a batch and a coalesced fetch): it shares the command's bytes
	// (argString), as a plain run's GETs do. The tier's cache keeps the
	// keys it fills: it gets a copy.
	key := argString(a[1])
	if s.g.cache != nil {
		key = string(a[1])
	}
	r := s.g.oneFrom(ctx, s.tenant, op{kind: opGet, key: key}, rd)
	if r.err != nil {
		return errReply(r.err)
	}
	if !r.found {
		return nullReply{}
	}
	return r.value
}

func cmdMGet(ctx context.Context, s *session, a [][]byte) any {
	ops := make([]op, len(a)-1)
	for i, k := range a[1:] {
		ops[i] = op{kind: opGet, key: string(k)}
	}
	res := s.g.run(ctx, s.tenant, ops)
	return mgetReply(len(res), func(i int) *opResult { return &res[i] })
}

func cmdExists(ctx context.Context, s *session, a [][]byte) any {
	return countKeys(ctx, s, a, opExists)
}

func cmdDel(ctx context.Context, s *session, a [][]byte) any {
	return countKeys(ctx, s, a, opDel)
}

func countKeys(ctx context.Context, s *session, a [][]byte, kind opKind) any {
	ops := make([]op, len(a)-1)
	for i, k := range a[1:] {
		ops[i] = op{kind: kind, key: string(k)}
	}
	res := s.g.run(ctx, s.tenant, ops)
	if kind == opDel {
		if bad, failed := s.g.writeErr(ops, res); failed {
			return bad
		}
	}
	var n int64
	for _, r := range res {
		if r.err != nil {
			return errReply(r.err)
		}
		if r.found {
			n++
		}
	}
	return n
}

// writeErr is the reply of a multi-key write (MSET, DEL) whose results hold
// an error; failed is false when none does. A shard's part refused
// OVERLOADED (the batcher's in-flight cap, or the shard's share of it) is a
// refusal only when every part was: -OVERLOADED tells the client nothing
// ran. When another part failed otherwise (a shard's error or a timeout,
// after which the shard may have applied it), that failure is the reply;
// when the others were applied, the refused part answers "ERR backend shard
// N: OVERLOADED ...", as a shard that fails does, since the keys of the
// parts applied were written or deleted. A write refused whole stays
// -OVERLOADED.
func (g *Gateway) writeErr(ops []op, res []opResult) (reply respErr, failed bool) {
	first, failure, applied := -1, -1, false
	for i, r := range res {
		switch {
		case r.err == nil:
			applied = true
		case first < 0:
			first = i
		}
		if failure < 0 && r.err != nil && !errors.Is(r.err, errOverloaded) {
			failure = i
		}
	}
	switch {
	case first < 0:
		return "", false
	case failure >= 0:
		return errReply(res[failure].err), true
	case applied:
		return errReply(fmt.Errorf("ERR backend shard %d: %w", g.shard(ops[first].key), res[first].err)), true
	}
	return errReply(res[first].err), true
}

// checkSet reads SET's options (setOptions).
func checkSet(_ *Gateway, a [][]byte) (ca cmdArgs, bad respErr) {
	ca.nx, ca.xx, ca.ttl, bad = setOptions(a)
	return ca, bad
}

func runSet(ctx context.Context, s *session, a [][]byte, ca cmdArgs) any {
	// The key shares the command's bytes (argString), as the value does: it
	// lives no longer than the command (memkv copies what it stores; the
	// caching tier's invalidation keeps no key).
	o := op{kind: opSet, key: argString(a[1]), value: a[2], nx: ca.nx, xx: ca.xx, ttl: ca.ttl}
	r := s.g.one(ctx, s.tenant, o)
	switch {
	case r.err != nil:
		return errReply(r.err)
	case !r.found:
		return nullReply{}
	}
	return simple("OK")
}

// checkMSet refuses an MSET whose last key has no value.
func checkMSet(_ *Gateway, a [][]byte) (cmdArgs, respErr) {
	if len(a)%2 != 1 {
		return cmdArgs{}, errArity("mset")
	}
	return cmdArgs{}, ""
}

func runMSet(ctx context.Context, s *session, a [][]byte, _ cmdArgs) any {
	ops := make([]op, 0, len(a)/2)
	for i := 1; i < len(a); i += 2 {
		ops = append(ops, op{kind: opSet, key: string(a[i]), value: a[i+1]})
	}
	// NOTE: unlike Redis, MSET across shards is not atomic (nor DEL).
	if bad, failed := s.g.writeErr(ops, s.g.run(ctx, s.tenant, ops)); failed {
		return bad
	}
	return simple("OK")
}

// checkIncrBy reads INCRBY's (sign 1) or DECRBY's (sign -1) increment as
// the delta of the key.
func checkIncrBy(sign int64) func(*Gateway, [][]byte) (cmdArgs, respErr) {
	return func(_ *Gateway, a [][]byte) (cmdArgs, respErr) {
		n, err := parseRedisInt(a[2])
		if err != nil {
			return cmdArgs{}, "ERR value is not an integer or out of range"
		}
		if sign < 0 {
			if n == math.MinInt64 {
				return cmdArgs{}, "ERR decrement would overflow"
			}
			n = -n
		}
		return cmdArgs{n: n}, ""
	}
}

// cmdIncr is INCR (delta 1) or DECR (delta -1), which have no argument to
// check.
func cmdIncr(delta int64) func(context.Context, *session, [][]byte) any {
	return func(ctx context.Context, s *session, a [][]byte) any {
		return runIncr(ctx, s, a, cmdArgs{n: delta})
	}
}

// runIncr adds ca.n to the key.
func runIncr(ctx context.Context, s *session, a [][]byte, ca cmdArgs) any {
	r := s.g.one(ctx, s.tenant, op{kind: opIncr, key: string(a[1]), delta: ca.n})
	if r.err != nil {
		return errReply(r.err)
	}
	return r.n
}
