package main

import "testing"

// noPerm is the gateway's reply to a command its tenant's ACL denies: the
// error code is Redis's, the text its own (README, "Tenants").
const noPerm = `-"NOPERM this tenant may not run this command or touch this key"`

// TestTxACLAsRedis runs transactions whose commands an ACL denies against a
// redis-server whose default user has the ACL of the gateway's default
// tenant (the commands GET, SET, DEL and WATCH, the keys under {e}), and
// against the gateway on memkv and on Redis shards: a denied command inside
// MULTI answers -NOPERM and fails the transaction, WATCH's too. Redis checks
// the ACL before WATCH's own refusal inside MULTI; the gateway answered the
// refusal instead, and EXEC ran the transaction that Redis discards.
func TestTxACLAsRedis(t *testing.T) {
	rs := startRedis(t, "--user", "default", "on", "nopass", "resetkeys", "~{e}*", "-@all",
		"+get", "+set", "+del", "+watch", "+multi", "+exec", "+discard", "+unwatch", "+ping", "+hello", "+info", "+client")
	ten := []TenantConfig{{Name: "default", Commands: []string{"GET", "SET", "DEL", "WATCH"}, KeyPrefixes: []string{"{e}"}}}
	gws := startEdgeGateways(t, ten)
	cases := []edgeCase{
		{name: "denied command queued", cmds: []string{"MULTI", "MSET {e}a 1", "SET {e}a 1", "EXEC", "GET {e}a"},
			gw: map[string]string{"MSET {e}a 1": noPerm}},
		{name: "denied key queued", cmds: []string{"MULTI", "GET {x}a", "SET {e}a 1", "EXEC", "GET {e}a"},
			gw: map[string]string{"GET {x}a": noPerm}},
		{name: "denied WATCH", cmds: []string{"WATCH {x}a", "WATCH {e}a {x}b", "SET {e}a 2", "MULTI", "GET {e}a", "EXEC"},
			gw: map[string]string{"WATCH {x}a": noPerm, "WATCH {e}a {x}b": noPerm}},
		{name: "denied WATCH inside MULTI", cmds: []string{"MULTI", "WATCH {x}a", "SET {e}a 1", "EXEC", "GET {e}a",
			"MULTI", "WATCH {e}b", "SET {e}b 1", "EXEC", "GET {e}b"},
			gw: map[string]string{"WATCH {x}a": noPerm}},
	}
	runEdgeCasesOnBoth(t, rs.addr, gws, cases)
}
