package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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
// Until a review added the patterns below, path.Match read them, and
// matched nothing where it found one malformed.
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
		// Patterns path.Match refuses, which Redis reads: a range with its
		// bounds reversed (swapped before they are lowered: "[Z-a]" is
		// 'z' to 'a', empty), a '-' first in a class, an empty class after
		// '^', a class not closed, and a pattern cut at a NUL byte.
		{"CONFIG", "GET", "[z-a]ave"}, {"CONFIG", "GET", "[Z-a]ave"}, {"CONFIG", "GET", "maxmemory-polic[z-a]"},
		{"CONFIG", "GET", "s[-a]ve"}, {"CONFIG", "GET", "[^]ave"}, {"CONFIG", "GET", "sav[e"}, {"CONFIG", "GET", "appendonl[y"},
		{"CONFIG", "GET", "sav*\x00x"}, {"CONFIG", "GET", `sav[\e]`}, {"CONFIG", "GET", "[\xff-a]ave"},
		// Not "save\x00*": a name with no wildcard before its NUL, which
		// Redis 7.0 looks up in its dict of settings by a hash of all six
		// bytes and a comparison up to the NUL, so it finds "save" only when
		// the two hashes share a bucket, which its random hash seed decides
		// run by run (it did once in a CI-like run). The gateway answers
		// nothing, as Redis does but by chance: TestConfigGetNameWithNUL.
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

// TestConfigGetRandomGlobsAsRedis: random patterns made of the bytes that
// matter to a glob match the same settings in Redis and in the gateway,
// among those the gateway answers (Redis has more; values differ for some).
func TestConfigGetRandomGlobsAsRedis(t *testing.T) {
	rs := startRedis(t)
	gw := startGateway(t, Config{HTTPAddr: "-"})
	p, err := dialPair(rs.addr, gw.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	known := func(v rval) []string {
		var names []string
		for i := 0; i+1 < len(v.elem); i += 2 {
			if n := v.elem[i].s; slices.ContainsFunc(configValues[:], func(kv [2]string) bool { return kv[0] == n }) {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		return names
	}
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{"*", "?", "[", "]", "^", "-", `\\`, "\\xff", "a", "e", "s", "v", "Z", "m", "y"}
	for range 3000 {
		// A setting's name with some of its bytes made glob syntax.
		name := []byte(configValues[r.IntN(len(configValues))][0])
		pat := ""
		for i, c := range name {
			switch r.IntN(12) {
			case 0:
				pat += parts[r.IntN(len(parts))]
			case 1:
				pat += parts[r.IntN(len(parts))] + string(c)
			case 2:
				pat += "[" + parts[r.IntN(len(parts))] + string(c) + parts[r.IntN(len(parts))]
			case 3:
				pat += fmt.Sprintf("[%c-%c]", name[r.IntN(len(name))], c)
			case 4:
				pat += string(c - 'a' + 'A')
			case 5:
				if i == len(name)-1 || r.IntN(2) == 0 {
					pat += string(c)
				}
			default:
				pat += string(c)
			}
		}
		c := []string{"CONFIG", "GET", pat}
		want, werr := p.redis.do([][]string{c}, false)
		got, gerr := p.gw.do([][]string{c}, false)
		if werr != nil || gerr != nil {
			t.Fatalf("%s: redis %v, gateway %v", quoteCmd(c), werr, gerr)
		}
		if w, g := known(want[0]), known(got[0]); fmt.Sprint(w) != fmt.Sprint(g) {
			t.Errorf("%q: redis %v, gateway %v", pat, w, g)
		}
	}
}

// FuzzGlobMatch: any pattern and name, malformed or not, match without a
// panic; the empty name matches only the empty pattern (Redis's stringmatchlen
// compares no byte of an empty string: KEYS ** leaves out the key "", only
// KEYS * takes a shortcut that lists it); a pattern with no special byte
// matches exactly its own name in any case, and "*" followed by it matches
// every non-empty name that ends with it.
func FuzzGlobMatch(f *testing.F) {
	for _, s := range [][2]string{{"save", "save"}, {"[z-a]ave", "save"}, {"sav[e", "save"}, {`\`, `\`},
		{"[", "a"}, {"[^", "a"}, {`[\`, "a"}, {"*?*[a-", "maxmemory"}, {"a\x00b", "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if got := globMatch([]byte(pattern), name); name == "" && got != (pattern == "") {
			t.Fatalf("globMatch(%q, \"\") = %v", pattern, got)
		}
		if strings.ContainsAny(pattern, "*?[\\") {
			return
		}
		if got, want := globMatch([]byte(pattern), name), strings.EqualFold(pattern, name) && isASCII(pattern+name); isASCII(pattern+name) && got != want {
			t.Fatalf("globMatch(%q, %q) = %v, want %v", pattern, name, got, want)
		}
		if name+pattern != "" && !globMatch([]byte("*"+pattern), name+strings.ToUpper(pattern)) && isASCII(pattern) {
			t.Fatalf("globMatch(%q, %q) = false", "*"+pattern, name+strings.ToUpper(pattern))
		}
	})
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// TestConfigGetNameWithNUL: a pattern with no wildcard before a NUL byte is
// a name, looked up whole, so "save\x00*" names no setting and the reply is
// empty (Redis 7.0 answers the same unless its random hash seed puts the
// name in the bucket of "save": see TestConfigGetGlobAsRedis).
func TestConfigGetNameWithNUL(t *testing.T) {
	gw := startGateway(t, Config{HTTPAddr: "-"})
	c, err := dialRESP(gw.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	got, err := c.do([][]string{{"CONFIG", "GET", "save\x00*"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if g := fullString(got[0]); g != "*[]" {
		t.Errorf(`CONFIG GET "save\x00*": %s, want an empty reply`, g)
	}
}
