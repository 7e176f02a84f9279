package main

import "testing"

// Redis compares subcommand and option names with strcasecmp and lowers
// INFO sections with tolower: ASCII letters only. The gateway used
// strings.ToUpper and ToLower, which also map 'ı' (U+0131) to 'I', 'ſ'
// (U+017F) to 'S', 'İ' (U+0130) to 'i' and the Kelvin sign to 'k': "CLIENT
// ıd" answered the connection's id and "HELLO 2 ſetname n" named it, where
// Redis answers unknown subcommand and syntax error.
var asciiCaseCases = []edgeCase{{name: "names with letters that case-map to ASCII", cmds: []string{
	"CLIENT ıd", "CLIENT ınfo", "CLIENT ſetname n1", "CLIENT GETNAME", "COMMAND ınfo get", "COMMAND lıſt",
	"COMMAND DOCſ", "CONFIG ſet maxmemory 0", "CONFIG reſetstat", "HELLO 2 ſetname n2", "CLIENT GETNAME",
	"SET {e}k v ex 100 \u212Aeepttl", "GET {e}k",
}}}

func TestNamesCaseMapASCIIOnly(t *testing.T) {
	rs := startRedis(t)
	gw := startGateway(t, Config{HTTPAddr: "-"})
	for _, tc := range asciiCaseCases {
		for _, d := range runEdgeCase(t, rs.addr, gw.Addr(), tc, true) {
			t.Error(d)
		}
	}
	// INFO and CONFIG GET compare by shape in runEdgeCase: their answers
	// here are empty, in full.
	p, err := dialPair(rs.addr, gw.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for _, c := range [][]string{{"INFO", "\u212Aeyspace"}, {"INFO", "clİents"}, {"CONFIG", "GET", "tİmeout"}, {"CONFIG", "GET", "tİme*"}} {
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
