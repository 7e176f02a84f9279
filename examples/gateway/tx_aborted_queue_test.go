package main

import "testing"

// TestAbortedTxStoresNothing: once a command has failed to queue (EXEC will
// answer EXECABORT), Redis answers QUEUED to the rest without storing them.
// The gateway stored them, up to max_tx_commands, and then answered
// "transaction too long" where Redis answers QUEUED; it now stores nothing
// more, so an aborted transaction holds no memory and answers as Redis.
func TestAbortedTxStoresNothing(t *testing.T) {
	rs := startRedis(t)
	in := startGateway(t, Config{HTTPAddr: "-", Limits: Limits{MaxTxCommands: 4}})
	tc := edgeCase{name: "commands after a failed one in MULTI", cmds: []string{"MULTI", "NOSUCH"}}
	for range 8 {
		tc.cmds = append(tc.cmds, "SET {e}k v")
	}
	tc.cmds = append(tc.cmds, "EXEC", "EXISTS {e}k")
	for _, pipelined := range []bool{false, true} {
		for _, d := range runEdgeCase(t, rs.addr, in.Addr(), tc, pipelined) {
			t.Error(d)
		}
	}
}
