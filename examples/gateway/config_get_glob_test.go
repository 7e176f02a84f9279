package main

import (
	"testing"
)

// TestConfigGetGlobAsRedis: CONFIG GET reads its patterns as Redis's
// stringmatch does (*, ?, [...] classes with ^ and ranges, \ escapes,
// without case), and a pattern without wildcards is looked up as a name and
// answered under the name as sent. The gateway knew only '*': "max?emory"
// and "maxmemory-polic[xy]" answered nothing where Redis answers the
// setting, and "MAXMEMORY" came back as "maxmemory", which a client that
// looks the reply up by the name it asked for does not find. Each pattern
// here matches only settings the gateway answers with Redis's value (not
// timeout: the gateway's is its idle_timeout, TestConfigGetTimeoutIsIdleTimeout).
func TestConfigGetGlobAsRedis(t *testing.T) {
	rs := startRedis(t)
	gw := startGateway(t, Config{HTTPAddr: "-"})
	p, err := dialPair(rs.addr, gw.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for _, c := range [][]string{
		{"CONFIG", "GET", "max?emory"}, {"CONFIG", "GET", "MAX?EMORY"}, {"CONFIG", "GET", "maxmemory-polic[xy]"},
		{"CONFIG", "GET", "maxmemory-polic[^a]"}, {"CONFIG", "GET", "maxmemory-polic[a-z]"}, {"CONFIG", "GET", `max\memory`},
		{"CONFIG", "GET", "maxmemor?"}, {"CONFIG", "GET", "appendonl[y]"}, {"CONFIG", "GET", "maxmemory-polic["},
		{"CONFIG", "GET", "MAXMEMORY"}, {"CONFIG", "GET", "MaxMemory-Policy"}, {"CONFIG", "GET", "MAXMEMORY", "maxmemory"},
		{"CONFIG", "GET", "AppendOnly", "appendonl*"}, {"CONFIG", "GET", "appendonly?"}, {"CONFIG", "GET", "Cluster-Enabled"},
	} {
		want, werr := p.redis.do([][]string{c}, false)
		got, gerr := p.gw.do([][]string{c}, false)
		if werr != nil || gerr != nil {
			t.Fatalf("%s: redis %v, gateway %v", quoteCmd(c), werr, gerr)
		}
		if w, g := fullString(want[0]), fullString(got[0]); w != g {
			t.Errorf("%s: redis %s, gateway %s", quoteCmd(c), w, g)
		}
	}
}
