package main

// Edge cases of the implemented commands, table-driven, against a real
// redis-server: each case's commands go, one at a time and then as one
// pipeline, to Redis and to the gateway (on memkv and on two Redis shards)
// over fresh connections, and the
// replies must be the same, error texts included (clients match on them:
// "ERR wrong number of arguments for 'get' command"). Where the server's
// own content differs (HELLO's map, COMMAND COUNT, CLIENT ID/INFO), replies
// compare as in diff_test.go. Where the gateway differs on purpose (README,
// "Commands"), the case gives the gateway's reply instead.

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// edgeCase is a sequence of commands on one connection; a command is written
// as its arguments separated by spaces, an argument in Go quotes where it
// has spaces or is empty. Keys are under the {e} hash tag: all on one shard.
type edgeCase struct {
	name string
	cmds []string
	// gw: the gateway's reply (rval.String) to a command of cmds, as
	// written there, where it differs from Redis on purpose.
	gw map[string]string
}

var edgeCases = []edgeCase{
	{name: "SET EX and PX values", cmds: []string{
		"SET {e}k v EX 0", "SET {e}k v EX -1", "SET {e}k v EX 1.5", "SET {e}k v EX abc", `SET {e}k v EX ""`,
		"SET {e}k v EX 9223372036854775807", "SET {e}k v EX 99999999999999999999", "SET {e}k v EX 9223372036854775",
		"SET {e}k v PX 0", "SET {e}k v PX -5", "SET {e}k v PX 1e3", "SET {e}k v PX +100", "SET {e}k v PX 9223372036854775807",
		"SET {e}k v EX 0 EX 100", "SET {e}k v EX 100 EX abc", "GET {e}k",
	}},
	{name: "SET conflicting and missing options", cmds: []string{
		"SET {e}k v NX XX", "SET {e}k v XX NX", "SET {e}k v EX 10 PX 100", "SET {e}k v PX 100 EX 10",
		"SET {e}k v EX", "SET {e}k v PX", "SET {e}k v NX EX", "SET {e}k v EX abc NX XX", "SET {e}k v EX 0 EX",
		"SET {e}k v BOGUS", "SET {e}k v NX NX", "GET {e}k",
	}},
	{name: "SET options the gateway refuses", cmds: []string{
		"SET {e}k v EX 10 KEEPTTL", "SET {e}k v KEEPTTL EX 10", "SET {e}k v EXAT 10 EX 10", "SET {e}k v PX 10 PXAT 10",
		"SET {e}k v EXAT", "SET {e}k v get nx xx", "SET {e}k v EXAT abc", "SET {e}k v EXAT 0", "SET {e}k v PXAT -1",
		"SET {e}k v EXAT 9223372036854775807", "SET {e}k v EXAT 1.5 GET",
		"SET {e}k v KEEPTTL", "SET {e}k v get", "SET {e}k v NX GET", "SET {e}k v EXAT 99999999999",
		"SET {e}k v pxat 9223372036854775807", "SET {e}k v KEEPTTL KEEPTTL xx", "SET {e}k v EXAT 1 EXAT 2",
	}, gw: map[string]string{
		"SET {e}k v KEEPTTL":                  `-"ERR SET option 'KEEPTTL' is not supported by the gateway"`,
		"SET {e}k v get":                      `-"ERR SET option 'GET' is not supported by the gateway"`,
		"SET {e}k v NX GET":                   `-"ERR SET option 'GET' is not supported by the gateway"`,
		"SET {e}k v EXAT 99999999999":         `-"ERR SET option 'EXAT' is not supported by the gateway"`,
		"SET {e}k v pxat 9223372036854775807": `-"ERR SET option 'PXAT' is not supported by the gateway"`,
		"SET {e}k v KEEPTTL KEEPTTL xx":       `-"ERR SET option 'KEEPTTL' is not supported by the gateway"`,
		"SET {e}k v EXAT 1 EXAT 2":            `-"ERR SET option 'EXAT' is not supported by the gateway"`,
	}},
	{name: "SET options in any order and case", cmds: []string{
		"SET {e}k v ex 100 nx", "SET {e}k w Nx eX 100", "SET {e}k w xx px 100", "GET {e}k",
		"SET {e}m v XX", "SET {e}m v nX", "SET {e}m w PX 100000 xx", "MGET {e}k {e}m",
	}},
	{name: "INCR of values that are not integers", cmds: []string{
		"SET {e}n abc", "INCR {e}n", `SET {e}n " 1"`, "INCR {e}n", `SET {e}n "1 "`, "INCR {e}n",
		"SET {e}n +1", "INCR {e}n", "SET {e}n 01", "INCR {e}n", "SET {e}n -0", "DECR {e}n",
		"SET {e}n 1.5", "INCRBY {e}n 1", `SET {e}n ""`, "INCR {e}n", "SET {e}n 12345678901234567890", "INCR {e}n",
		`SET {e}n "\x001"`, "INCR {e}n", "GET {e}n",
	}},
	{name: "INCR overflow", cmds: []string{
		"SET {e}n 9223372036854775807", "INCR {e}n", "INCRBY {e}n 1", "DECR {e}n",
		"SET {e}n -9223372036854775808", "DECR {e}n", "DECRBY {e}n 1", "INCRBY {e}n -1",
		"DECRBY {e}n -9223372036854775808", "DECRBY {e}n 9223372036854775807", "INCRBY {e}n 9223372036854775807", "GET {e}n",
	}},
	{name: "INCRBY increment that is not an integer", cmds: []string{
		"INCRBY {e}n abc", "INCRBY {e}n 1.5", `INCRBY {e}n " 1"`, "INCRBY {e}n +1", `INCRBY {e}n ""`,
		"INCRBY {e}n 9223372036854775808", "DECRBY {e}n 01", "INCRBY {e}n -0", "GET {e}n",
	}},
	{name: "repeated keys", cmds: []string{
		"MSET {e}a", "MSET {e}a 1 {e}b", "MSET {e}a 1 {e}a 2", "GET {e}a", "MGET {e}a {e}a {e}z {e}a",
		"EXISTS {e}a {e}a {e}a {e}z", "DEL {e}a {e}a {e}z", "EXISTS {e}a", "SET {e}a 1", "UNLINK {e}a {e}a",
	}},
	{name: "arity of data commands", cmds: []string{
		"GET", "GET {e}a {e}b", "SET", "SET {e}a", "MGET", "EXISTS", "MSET", "DEL", "UNLINK",
		"INCR", "INCR {e}a 1", "DECR", "DECR {e}a 1", "INCRBY {e}a", "INCRBY {e}a 1 2", "DECRBY {e}a", "DECRBY {e}a 1 2",
		"get", "mset {e}a", "FOOBAR {e}a", "foobar a b c d e", "FOOBAR " + strings.Repeat("x", 140) + " b",
		"FOOBAR " + strings.Repeat("y", 60) + " " + strings.Repeat("z", 60) + " abcdefghijkl c", strings.Repeat("N", 140),
	}},
	{name: "arity of connection and transaction commands", cmds: []string{
		"PING a b", "PING a", "ECHO", "ECHO a b", "SELECT", "SELECT 0 1", "AUTH", "AUTH a b c",
		"WATCH", "MULTI x", "EXEC x", "DISCARD x", "UNWATCH x", "CLIENT", "COMMAND COUNT", "CONFIG", "CONFIG GET maxmemory",
	}},
	{name: "SELECT", cmds: []string{"SELECT 0", "SELECT -1", "SELECT 16", "SELECT abc", "SELECT 00", "SELECT 1.0", "SELECT 99999999999", "SELECT 9223372036854775808", "SELECT 1"},
		gw: map[string]string{"SELECT 1": `-"ERR DB index is out of range"`}}, // one db (CONFIG GET databases)
	{name: "HELLO", cmds: []string{
		"HELLO 4", "HELLO 1", "HELLO abc", "HELLO +3", "HELLO 2 AUTH nosuch pw", "HELLO 3 AUTH default", "HELLO 2 auth",
		"HELLO 2 SETNAME", "HELLO 2 SetName x BOGUS", "HELLO 3 setname", "HELLO 3", "GET {e}none", "HELLO 2", "GET {e}none",
	}},
	{name: "HELLO with AUTH and SETNAME, then RESP3 replies", cmds: []string{
		"HELLO 3 AUTH default pw", "HELLO 3 AUTH default", "HELLO 2 AUTH default pw SETNAME n1", "CLIENT GETNAME",
		// Redis 7.0 keeps the name of a HELLO whose AUTH fails, 7.2 (and the
		// gateway) does not: no GETNAME after it.
		"HELLO 3 SETNAME n2 AUTH nosuch pw", "HELLO 3 SETNAME", "HELLO 3 AUTH default pw SETNAME n3",
		"CLIENT GETNAME",
		// A bad name fails HELLO where it stands: before a later option's
		// syntax error, and whatever name follows it.
		`HELLO 3 SETNAME "a b" BOGUS`, `HELLO 3 SETNAME "a b" AUTH x`, `HELLO 2 SETNAME "a b" SETNAME n4`,
		"CLIENT GETNAME", "GET {e}none", "MGET {e}none {e}none", "SET {e}k v NX", "SET {e}k v NX", "COMMAND INFO nosuch",
		"EXISTS {e}k {e}k", "INCRBY {e}k 1",
	}},
	{name: "connection commands inside MULTI", cmds: []string{
		"MULTI", "SELECT 0", "SET {e}a 1", "EXEC", "MULTI", "CLIENT GETNAME", "EXEC", "MULTI", "HELLO 2", "EXEC",
		"MULTI", "AUTH default pw", "EXEC", "MGET {e}a",
	}, gw: map[string]string{ // README: refused inside MULTI, where Redis queues them
		"SELECT 0":        `-"ERR command not allowed inside a transaction"`,
		"CLIENT GETNAME":  `-"ERR command not allowed inside a transaction"`,
		"HELLO 2":         `-"ERR command not allowed inside a transaction"`,
		"AUTH default pw": `-"ERR command not allowed inside a transaction"`,
		"EXEC":            `-"EXECABORT Transaction discarded because of previous errors."`,
		"MGET {e}a":       `*[$-1]`,
	}},
	{name: "KVSCAN inside MULTI", cmds: []string{
		"MULTI", "KVSCAN {e}a {e}z", "SET {e}a 1", "EXEC", "GET {e}a",
	}, gw: map[string]string{ // not a Redis command; refused as the connection commands are
		"KVSCAN {e}a {e}z": `-"ERR command not allowed inside a transaction"`,
	}},
	{name: "CLIENT", cmds: []string{
		"CLIENT NOSUCH", "CLIENT nosuch x", "CLIENT SETNAME", "CLIENT SETNAME a b", `CLIENT SETNAME "a b"`,
		"CLIENT SETNAME n1", "CLIENT GETNAME", `CLIENT SETNAME ""`, "CLIENT GETNAME", "CLIENT ID",
		"CLIENT GETNAME x", "CLIENT ID x", "CLIENT INFO x",
	}},
	{name: "COMMAND and CONFIG subcommands", cmds: []string{
		"COMMAND COUNT x", "COMMAND NOSUCH", "COMMAND nosuch x", "CONFIG GET", "CONFIG nosuch", "CONFIG SET x",
		"CONFIG RESETSTAT x", "CONFIG get", "config get maxmemory x",
		"COMMAND INFO nosuch", "COMMAND INFO nosuch alsonot", "COMMAND LIST x", "COMMAND LIST FILTERBY PATTERN nosuch*",
		"COMMAND LIST FILTERBY bogus x", "COMMAND LIST FILTERBY PATTERN", "COMMAND INFO get nosuch",
	}, gw: map[string]string{
		"COMMAND INFO get nosuch": `*[$-1 $-1]`, // no command table: a null per name, as Redis answers for a name it does not know
	}},
	{name: "CLIENT SETINFO (Redis 7.2; the test's Redis may lack it)", cmds: []string{
		"CLIENT SETINFO LIB-NAME go-redis(,go1.26)", "CLIENT SETINFO lib-ver 9.7.0", "CLIENT SETINFO bogus x",
		`CLIENT SETINFO lib-name "a b"`, "CLIENT SETINFO LIB-NAME", "CLIENT SETINFO LIB-VER 1 2",
	}, gw: map[string]string{
		"CLIENT SETINFO LIB-NAME go-redis(,go1.26)": `+"OK"`,
		"CLIENT SETINFO lib-ver 9.7.0":              `+"OK"`,
		"CLIENT SETINFO bogus x":                    `-"ERR Unrecognized option 'bogus'"`,
		`CLIENT SETINFO lib-name "a b"`:             `-"ERR lib-name cannot contain spaces, newlines or special characters."`,
		"CLIENT SETINFO LIB-NAME":                   `-"ERR wrong number of arguments for 'client|setinfo' command"`,
		"CLIENT SETINFO LIB-VER 1 2":                `-"ERR wrong number of arguments for 'client|setinfo' command"`,
	}},
	{name: "EXEC, DISCARD and MULTI out of place", cmds: []string{
		"EXEC", "DISCARD", "MULTI", "MULTI", "SET {e}a 1", "EXEC", "MULTI", "DISCARD", "DISCARD", "EXEC", "GET {e}a",
	}},
	{name: "WATCH inside MULTI", cmds: []string{
		"WATCH {e}a", "MULTI", "WATCH {e}b", "SET {e}a 2", "EXEC", "GET {e}a", "MULTI", "UNWATCH", "EXEC",
	}},
	{name: "errors while queuing abort EXEC", cmds: []string{
		"MULTI", "SET {e}a", "SET {e}b 1", "EXEC", "MULTI", "NOSUCH x", "EXEC", "MULTI", "EXEC x", "EXEC",
		"MULTI", "CONFIG GET", "EXEC", "MULTI", "CONFIG NOSUCH", "EXEC", "MULTI", "COMMAND COUNT x", "EXEC", "MGET {e}a {e}b",
	}},
	{name: "errors while running do not abort EXEC", cmds: []string{
		"MULTI", "SET {e}a 1 BOGUS", "SET {e}a x", "INCR {e}a", "SET {e}b v EX 0", "PING a b", "ECHO hi", "SET {e}b 1 NX XX",
		"INCRBY {e}b abc", "EXEC", "MGET {e}a {e}b",
	}},
}

func TestDifferentialEdges(t *testing.T) {
	rs := startRedis(t)
	runEdgeCasesOnBoth(t, rs.addr, startEdgeGateways(t, nil), append(edgeCases, nulOptionCases...))
}

// startEdgeGateways starts a gateway on memkv and one on two Redis shards,
// both with tenants (nil: the default), keyed "memkv" and "redis".
func startEdgeGateways(t *testing.T, tenants []TenantConfig) map[string]*instance {
	t.Helper()
	addrs := []string{startRedis(t).addr, startRedis(t).addr}
	return map[string]*instance{
		"memkv": startGateway(t, Config{HTTPAddr: "-", Tenants: tenants}),
		"redis": startGateway(t, Config{HTTPAddr: "-", Tenants: tenants, Backend: BackendConfig{Kind: "redis", Redis: addrs, Pool: 2}}),
	}
}

// runEdgeCasesOnBoth runs each case against the Redis at redisAddr and
// against both of gws, one command at a time and pipelined, each in a
// subtest "backend/mode/name" that fails on every difference.
func runEdgeCasesOnBoth(t *testing.T, redisAddr string, gws map[string]*instance, cases []edgeCase) {
	t.Helper()
	for _, backend := range []string{"memkv", "redis"} {
		for _, mode := range []string{"one by one", "pipelined"} {
			for _, tc := range cases {
				t.Run(backend+"/"+mode+"/"+tc.name, func(t *testing.T) {
					for _, d := range runEdgeCase(t, redisAddr, gws[backend].Addr(), tc, mode == "pipelined") {
						t.Error(d)
					}
				})
			}
		}
	}
}

// runEdgeCase runs tc on fresh connections to Redis and to the gateway,
// each command alone or all in one pipeline, and returns the differences.
func runEdgeCase(t *testing.T, redisAddr, gwAddr string, tc edgeCase, pipelined bool) []string {
	p, err := dialPair(redisAddr, gwAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	reset := [][]string{{"DEL", "{e}k", "{e}m", "{e}n", "{e}a", "{e}b", "{e}z"}}
	if _, err := p.redis.do(reset, false); err != nil {
		t.Fatal(err)
	}
	if _, err := p.gw.do(reset, false); err != nil {
		t.Fatal(err)
	}
	cmds := make([][]string, len(tc.cmds))
	for i, line := range tc.cmds {
		cmds[i] = edgeArgs(t, line)
	}
	batches := [][][]string{cmds}
	if !pipelined {
		batches = batches[:0]
		for i := range cmds {
			batches = append(batches, cmds[i:i+1])
		}
	}
	var want, got []rval
	for _, b := range batches {
		w, werr := p.redis.do(b, false)
		g, gerr := p.gw.do(b, false)
		if werr != nil || gerr != nil {
			t.Fatalf("%s: redis %v, gateway %v", quoteCmd(b[0]), werr, gerr)
		}
		want, got = append(want, w...), append(got, g...)
	}
	var diffs []string
	for i, line := range tc.cmds {
		if gw, ok := tc.gw[line]; ok {
			if r := fullString(got[i]); r != gw {
				diffs = append(diffs, line+": gateway "+r+", want "+gw)
			}
			continue
		}
		if d := sameExact(cmds[i], want[i], got[i]); d != "" {
			diffs = append(diffs, line+": "+d)
		}
	}
	return diffs
}

// sameExact is sameReply with errors compared by their whole text, in
// EXEC's reply too.
func sameExact(cmd []string, want, got rval) string {
	name, sub := strings.ToUpper(cmd[0]), ""
	if len(cmd) > 2 { // COMMAND INFO or LIST with arguments: the gateway's answer is Redis's
		sub = strings.ToUpper(cmd[1])
	}
	exact := slices.Contains([]string{"EXEC", "GET", "MGET", "SET"}, name) || name == "COMMAND" && (sub == "INFO" || sub == "LIST")
	if want.typ != '-' && got.typ != '-' && !exact {
		return sameReply(cmd, want, got)
	}
	switch {
	case reflect.DeepEqual(want, got):
		return ""
	case want.typ == '-' && got.typ == '-':
		return fmt.Sprintf("redis -%q, gateway -%q", want.s, got.s)
	}
	return "redis " + want.String() + ", gateway " + got.String()
}

// fullString is v.String() without cutting long strings.
func fullString(v rval) string {
	switch {
	case v.null:
		return string(v.typ) + "-1"
	case v.elem != nil || strings.ContainsRune("*%~>|", rune(v.typ)):
		parts := make([]string, len(v.elem))
		for i, e := range v.elem {
			parts[i] = fullString(e)
		}
		return string(v.typ) + "[" + strings.Join(parts, " ") + "]"
	}
	return string(v.typ) + strconv.Quote(v.s)
}

// edgeArgs splits a command line of edgeCase.cmds into its arguments.
func edgeArgs(t *testing.T, line string) []string {
	var args []string
	for line = strings.TrimLeft(line, " "); line != ""; line = strings.TrimLeft(line, " ") {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			a, _ := strconv.Unquote(q)
			args, line = append(args, a), line[len(q):]
			continue
		}
		a, rest, _ := strings.Cut(line, " ")
		args, line = append(args, a), rest
	}
	return args
}
