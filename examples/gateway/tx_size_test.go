package main

import (
	"strings"
	"testing"
)

// TestTxLargerThanStoreBounds runs a transaction that writes 17.5 MiB (five
// SETs of 3.5 MiB, each under max_request_bytes, five of max_tx_commands)
// on redis-server and through the gateway on memkv and on a Redis shard:
// each SET answers OK in EXEC's reply and every key is written, as in Redis.
// Before, txn's default memory budget (16 MiB) refused the fifth SET inside
// EXEC while the shard applied the other four, and on memkv the commit
// passed the store's 10 MiB bound and EXEC answered an error.
func TestTxLargerThanStoreBounds(t *testing.T) {
	rs, shard := startRedis(t), startRedis(t)
	v := strings.Repeat("x", 3<<20+512<<10)
	keys := []string{"{e}a", "{e}b", "{e}k", "{e}m", "{e}n"} // runEdgeCase deletes them first
	tc := edgeCase{name: "17.5 MiB in one transaction", cmds: []string{"MULTI"}}
	for _, k := range keys {
		tc.cmds = append(tc.cmds, "SET "+k+" "+v)
	}
	tc.cmds = append(tc.cmds, "EXEC", "EXISTS "+strings.Join(keys, " "))
	for name, cfg := range map[string]Config{
		"memkv": {HTTPAddr: "-"},
		"redis": {HTTPAddr: "-", Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2}},
	} {
		t.Run(name, func(t *testing.T) {
			for _, d := range runEdgeCase(t, rs.addr, startGateway(t, cfg).Addr(), tc, true) {
				t.Error(d)
			}
		})
	}
}
