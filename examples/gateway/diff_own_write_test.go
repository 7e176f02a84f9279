package main

import "testing"

// ownWriteCases: the connection's own writes of a watched key between its
// WATCH and EXEC. Redis aborts EXEC on any of them, whatever value it left
// (a write that changes nothing, DEL of an absent key, SET NX of a present
// one, SET XX of an absent one, INCR of a value that is no integer, is no
// write and aborts nothing); a write made before the key's WATCH does not
// abort, and UNWATCH, DISCARD and EXEC end what was watched.
var ownWriteCases = []edgeCase{
	{name: "SET of the same value", cmds: []string{
		"SET {e}k v", "WATCH {e}k", "SET {e}k v", "MULTI", "SET {e}k n", "EXEC", "GET {e}k",
	}},
	{name: "SET, then DEL", cmds: []string{
		"WATCH {e}k", "SET {e}k x", "DEL {e}k", "MULTI", "SET {e}k mine", "EXEC", "GET {e}k",
	}},
	{name: "INCR, then DECR", cmds: []string{
		"SET {e}n 1", "WATCH {e}n", "INCR {e}n", "DECR {e}n", "MULTI", "INCR {e}n", "EXEC", "GET {e}n",
	}},
	{name: "INCRBY 0", cmds: []string{
		"SET {e}n 1", "WATCH {e}n", "INCRBY {e}n 0", "MULTI", "INCR {e}n", "EXEC", "GET {e}n",
	}},
	{name: "MSET of the same value", cmds: []string{
		"SET {e}a 1", "WATCH {e}a", "MSET {e}b 2 {e}a 1", "MULTI", "SET {e}b 3", "EXEC", "MGET {e}a {e}b",
	}},
	{name: "DEL of a present and an absent key", cmds: []string{
		"SET {e}a 1", "WATCH {e}a {e}b", "DEL {e}a {e}b", "SET {e}a 1", "MULTI", "SET {e}m 3", "EXEC", "MGET {e}a {e}m",
	}},
	{name: "writes that write nothing", cmds: []string{
		"SET {e}m v", "WATCH {e}k {e}m", "DEL {e}k", "UNLINK {e}k {e}z", "SET {e}m w NX", "SET {e}k w XX",
		"INCR {e}m", "INCRBY {e}m 1", "SET {e}a 1", "MULTI", "SET {e}k n", "EXEC", "MGET {e}k {e}m",
	}},
	{name: "writes before the WATCH", cmds: []string{
		"SET {e}k v", "WATCH {e}a", "SET {e}k v", "WATCH {e}k", "MULTI", "SET {e}k n", "EXEC", "GET {e}k",
	}},
	{name: "a second WATCH keeps the write", cmds: []string{
		"SET {e}k v", "WATCH {e}k", "SET {e}k v", "WATCH {e}k", "MULTI", "SET {e}k n", "EXEC", "GET {e}k",
	}},
	{name: "UNWATCH, EXEC and DISCARD end it", cmds: []string{
		"SET {e}k v", "WATCH {e}k", "SET {e}k v", "UNWATCH", "MULTI", "SET {e}k n", "EXEC",
		"WATCH {e}k", "SET {e}k n", "UNWATCH", "WATCH {e}k", "MULTI", "SET {e}k m", "EXEC",
		"WATCH {e}k", "SET {e}k m", "MULTI", "EXEC", "WATCH {e}k", "MULTI", "SET {e}k o", "EXEC",
		"WATCH {e}k", "SET {e}k o", "MULTI", "DISCARD", "MULTI", "SET {e}k p", "EXEC", "GET {e}k",
	}},
	{name: "UNWATCH inside MULTI does not", cmds: []string{
		"SET {e}k v", "WATCH {e}k", "SET {e}k v", "MULTI", "UNWATCH", "SET {e}k n", "EXEC", "GET {e}k",
	}},
}

// TestOwnWriteOfWatchedKeyAsRedis: on Redis shards, WATCH k, SET k (its
// value again), MULTI, SET k n, EXEC committed: the commit script found k
// in its state at WATCH, where Redis answers null, since the connection
// itself wrote k after watching it (found by a review). The gateway sees
// the connection's own writes: it now marks the transaction, and EXEC
// answers null as Redis does. memkv aborted already (a version of k).
func TestOwnWriteOfWatchedKeyAsRedis(t *testing.T) {
	rs := startRedis(t)
	runEdgeCasesOnBoth(t, rs.addr, startEdgeGateways(t, nil), ownWriteCases)
}
