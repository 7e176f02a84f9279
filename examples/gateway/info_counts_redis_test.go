package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countCase is a sequence of commands after which INFO's
// total_commands_processed must have grown as redis-server's does.
type countCase struct {
	name string
	cmds []string // each split on spaces
	// redis, if set, is what Redis is sent instead of cmds: the stand-in
	// for a refusal of the gateway's own (CROSSSLOT), whose replies are
	// not compared.
	redis []string
}

// countCases are the commands whose count in total_commands_processed
// TestInfoCommandsCountedAsRedis compares; the tenant's ACL is that of
// countACL (the keys under {e} and {f}).
var countCases = []countCase{
	{"INFO alone", nil, nil},
	{"INFO after INFO", []string{"INFO stats"}, nil},
	{"PING", []string{"PING"}, nil},
	{"committed", []string{"MULTI", "SET {e}a 1", "GET {e}a", "EXEC"}, nil},
	{"INFO inside EXEC", []string{"MULTI", "INFO stats", "EXEC"}, nil},
	{"INFO inside EXEC after others", []string{"MULTI", "SET {e}a 1", "PING", "INFO stats", "EXEC"}, nil},
	{"EXECABORT", []string{"MULTI", "SET {e}a", "GET {e}a", "EXEC"}, nil},
	// A watched key written since: EXEC answers null and runs nothing.
	{"EXEC null", []string{"WATCH {e}w", "SET {e}w x", "MULTI", "SET {e}a 1", "GET {e}a", "EXEC"}, nil},
	{"EXEC null, key read inside", []string{"WATCH {e}w", "SET {e}w y", "MULTI", "GET {e}w", "EXEC"}, nil},
	// Refused by the gateway (keys on two shards), as Redis's EXEC
	// discarding the transaction: its commands ran nowhere.
	{"EXEC refused CROSSSLOT", []string{"MULTI", "SET {e}a 1", "SET {f}a 1", "EXEC"},
		[]string{"MULTI", "SET {e}a 1", "SET {f}a 1", "DISCARD"}},
	{"DISCARD", []string{"MULTI", "GET {e}a", "DISCARD"}, nil},
	{"EXEC without MULTI", []string{"EXEC"}, nil},
	{"arity", []string{"GET", "SET {e}a"}, nil},
	{"unknown command", []string{"NOSUCH {e}a"}, nil},
	{"denied command", []string{"MSET {e}a 1"}, nil},
	{"denied key", []string{"GET {x}a"}, nil},
	{"denied inside MULTI", []string{"MULTI", "MSET {e}a 1", "SET {e}a 1", "EXEC"}, nil},
	{"denied WATCH", []string{"WATCH {x}a"}, nil},
	{"denied WATCH inside MULTI", []string{"MULTI", "SET {e}a 1", "WATCH {x}a", "EXEC"}, nil},
}

// countACL is the ACL of redis-server's default user in
// TestInfoCommandsCountedAsRedis, the gateway's default tenant's in its
// own terms: GET, SET, DEL and WATCH on the keys under {e} and {f} (and the
// commands the gateway does not restrict, CONFIG RESETSTAT for the test).
var countACL = []string{"--user", "default", "on", "nopass", "resetkeys", "~{e}*", "~{f}*", "-@all",
	"+get", "+set", "+del", "+watch", "+multi", "+exec", "+discard", "+unwatch", "+ping", "+info",
	"+config|resetstat"}

// TestInfoCommandsCountedAsRedis sends each of countCases, one by one and
// pipelined, to a redis-server 7 after CONFIG RESETSTAT and to a fresh
// gateway, then INFO, whose total_commands_processed must be Redis's
// without its RESETSTAT: Redis counts a command once it ran (so INFO's
// count leaves INFO itself out), a queued command when EXEC runs it, and
// neither a command it refuses before running it (arity, unknown, ACL)
// nor one queued in a transaction it discards (EXECABORT, or null for a
// watched key written since; the gateway's CROSSSLOT compares with
// DISCARD).
func TestInfoCommandsCountedAsRedis(t *testing.T) {
	rs := startRedis(t, countACL...)
	ten := []TenantConfig{{Name: "default", Commands: []string{"GET", "SET", "DEL", "WATCH"}, KeyPrefixes: []string{"{e}", "{f}"}}}
	for _, pipelined := range []bool{false, true} {
		for _, tc := range countCases {
			name := tc.name + map[bool]string{false: "/one by one", true: "/pipelined"}[pipelined]
			t.Run(name, func(t *testing.T) {
				in := startGateway(t, Config{HTTPAddr: "-", Tenants: ten})
				require.NotEqual(t, in.gw.shard("{e}a"), in.gw.shard("{f}a"), "CROSSSLOT's keys")
				rcmds := tc.cmds
				if tc.redis != nil {
					rcmds = tc.redis
				}
				want := countAfter(t, rs.addr, []string{"CONFIG RESETSTAT"}, rcmds, pipelined)
				got := countAfter(t, in.Addr(), nil, tc.cmds, pipelined)
				if tc.redis == nil {
					sameReplies(t, tc.cmds, want.replies, got.replies)
				}
				assert.Equal(t, max(want.inside-1, -1), got.inside, "total_commands_processed of an INFO inside EXEC")
				assert.Equal(t, want.count-1, got.count, "total_commands_processed (Redis's without its CONFIG RESETSTAT)")
			})
		}
	}
}

// counted is what countAfter read: the replies to the commands, INFO's
// total_commands_processed after them (minus what the setup's commands
// counted is the caller's) and, for an INFO run by EXEC, its count there
// (-1 for none).
type counted struct {
	replies       []rval
	count, inside int64
}

// countAfter sends setup then cmds to addr on a new connection, one by one
// or in one write, and then INFO stats.
func countAfter(t *testing.T, addr string, setup, cmds []string, pipelined bool) counted {
	t.Helper()
	rc, err := dialRESP(addr)
	require.NoError(t, err)
	defer rc.close()
	for _, c := range setup {
		r, err := rc.do([][]string{strings.Fields(c)}, false)
		require.NoError(t, err)
		require.NotEqual(t, byte('-'), r[0].typ, "%s: %v", c, r[0])
	}
	var all [][]string
	for _, c := range cmds {
		all = append(all, strings.Fields(c))
	}
	all = append(all, []string{"INFO", "stats"})
	var replies []rval
	if pipelined {
		replies, err = rc.do(all, false)
		require.NoError(t, err)
	} else {
		for _, c := range all {
			r, err := rc.do([][]string{c}, false)
			require.NoError(t, err)
			replies = append(replies, r...)
		}
	}
	require.Len(t, replies, len(all))
	res := counted{replies: replies, count: infoField(t, replies[len(all)-1].s, "total_commands_processed"), inside: -1}
	require.GreaterOrEqual(t, res.count, int64(0), "INFO: %v", replies[len(all)-1])
	for _, r := range replies {
		for _, e := range r.elem {
			if strings.Contains(e.s, "total_commands_processed:") {
				res.inside = infoField(t, e.s, "total_commands_processed")
			}
		}
	}
	return res
}

// sameReplies checks that the gateway's replies to cmds are Redis's (EXEC's
// elements as their queued commands' replies).
func sameReplies(t *testing.T, cmds []string, want, got []rval) {
	t.Helper()
	var queued [][]string
	for i, c := range cmds {
		cmd := strings.Fields(c)
		switch name := strings.ToUpper(cmd[0]); {
		case name == "EXEC" && want[i].typ == '*' && len(want[i].elem) == len(queued):
			require.Len(t, got[i].elem, len(queued), "EXEC: %v", got[i])
			for j, q := range queued {
				assert.Empty(t, sameReply(q, want[i].elem[j], got[i].elem[j]), "EXEC's reply to %v", q)
			}
		default:
			assert.Empty(t, sameReply(cmd, want[i], got[i]), c)
		}
		if want[i].typ == '+' && want[i].s == "QUEUED" {
			queued = append(queued, cmd)
		}
	}
}
