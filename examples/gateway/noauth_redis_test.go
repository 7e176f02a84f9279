package main

import "testing"

// TestUnauthenticatedAsRedis: without an open tenant, a connection that has
// not authenticated may run AUTH, HELLO with AUTH, QUIT and RESET only, as
// on Redis with a password (its commands flagged no-auth); every other
// command answers NOAUTH. The gateway refused only data commands and WATCH:
// INFO listed every tenant's name (the user names AUTH takes) and counters
// and the shards' health to anyone who could connect, and HELLO 3 switched
// the protocol of a connection that then could run nothing.
func TestUnauthenticatedAsRedis(t *testing.T) {
	rs := startRedis(t)
	admin, err := dialRESP(rs.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.close()
	if r, err := admin.do([][]string{{"CONFIG", "SET", "requirepass", "pw"}}, false); err != nil || r[0].typ != '+' {
		t.Fatalf("CONFIG SET requirepass: %v %v", r, err)
	}
	gw := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", Password: "pw"}, {Name: "shop", Password: "s3cret"}}})
	tc := edgeCase{name: "unauthenticated", cmds: []string{
		"PING", "ECHO x", "INFO", "INFO tenants", "CONFIG GET maxmemory", "COMMAND COUNT", "CLIENT ID", "CLIENT SETNAME n",
		"SELECT 0", "MULTI", "EXEC", "DISCARD", "UNWATCH", "WATCH {e}a", "GET {e}a", "HELLO 3", "HELLO 3 SETNAME n", "HELLO",
		"PING", "HELLO 3 AUTH default nope", "RESET", "AUTH nope", "PING", "HELLO 3 AUTH default pw SETNAME n", "CLIENT GETNAME",
		"PING", "GET {e}a", "RESET", "PING", "AUTH pw", "PING", "QUIT",
	}}
	for _, pipelined := range []bool{false, true} {
		for _, d := range runEdgeCase(t, rs.addr, gw.Addr(), tc, pipelined) {
			t.Error(d)
		}
	}
}
