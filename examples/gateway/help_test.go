package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelpAsRedis: the errors for an unknown subcommand of CLIENT, COMMAND
// and CONFIG say "Try CLIENT HELP." (as Redis's), and HELP answered
// "unknown subcommand 'HELP'". It answers as Redis's does: an array of
// simple strings, from Redis's usage line to HELP's own lines (the ones
// between list what the gateway serves), in RESP2 and RESP3, and with an
// argument too many, Redis's arity error.
func TestHelpAsRedis(t *testing.T) {
	rs := startRedis(t)
	gw := startGateway(t, Config{HTTPAddr: "-"})
	p, err := dialPair(rs.addr, gw.Addr())
	require.NoError(t, err)
	defer p.close()
	for _, proto := range []string{"2", "3"} {
		cmds := [][]string{{"HELLO", proto}}
		for _, name := range []string{"CLIENT", "COMMAND", "CONFIG", "client"} {
			cmds = append(cmds, []string{name, "help"}, []string{name, "HELP", "x"}, []string{name, "nosuch"})
		}
		want, err := p.redis.do(cmds, false)
		require.NoError(t, err)
		got, err := p.gw.do(cmds, false)
		require.NoError(t, err)
		for i, c := range cmds[1:] {
			w, g := want[i+1], got[i+1]
			if len(c) != 2 || c[1] != "help" {
				assert.Equal(t, w, g, "%v", c)
				continue
			}
			require.Equal(t, byte('*'), g.typ, "%v: %v", c, g)
			require.GreaterOrEqual(t, len(g.elem), 3, "%v", c)
			for _, e := range g.elem {
				assert.Equal(t, byte('+'), e.typ, "%v: %v", c, e)
			}
			assert.Equal(t, w.elem[0], g.elem[0], "%v: usage line", c)
			assert.Equal(t, w.elem[len(w.elem)-2:], g.elem[len(g.elem)-2:], "%v: HELP's lines", c)
		}
	}
}
