package main

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// infoField is the number an INFO reply gives for name (-1: absent).
func infoField(t *testing.T, info, name string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `:(\d+)\r$`).FindStringSubmatch(info)
	if m == nil {
		return -1
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)
	return n
}

// TestInfoPipelinedAfterDataCommands: an INFO sent in one write after data
// commands reports them, as redis-server's does (it runs a connection's
// commands one after the other). INFO, a command without keys, joined the
// run of the commands before it and ran at the same time as them, so its
// counts (total_commands_processed, backend_calls, the tenant's requests)
// often missed the GET sent just before it, and could count a command
// sent after it.
func TestInfoPipelinedAfterDataCommands(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	rc, err := dialRESP(in.Addr())
	require.NoError(t, err)
	defer rc.close()
	for i := range 200 {
		k := "k" + strconv.Itoa(i)
		before, err := rc.do([][]string{{"INFO", "stats"}}, false)
		require.NoError(t, err)
		require.Len(t, before, 1)
		cmds0 := infoField(t, before[0].s, "total_commands_processed")
		calls0 := infoField(t, before[0].s, "backend_calls")
		r, err := rc.do([][]string{{"SET", k, "1"}, {"GET", k}, {"INFO", "stats"}}, false)
		require.NoError(t, err)
		require.Len(t, r, 3)
		require.Equal(t, "1", r[1].s)
		// The INFO before, SET and GET (an INFO leaves itself out, as
		// Redis's), and the SET's and GET's backend calls.
		require.Equal(t, cmds0+3, infoField(t, r[2].s, "total_commands_processed"), "run %d", i)
		assert.Equal(t, calls0+2, infoField(t, r[2].s, "backend_calls"), "run %d", i)
		// Nor does it count a command sent after it.
		cmds1 := infoField(t, r[2].s, "total_commands_processed")
		r, err = rc.do([][]string{{"INFO", "stats"}, {"GET", k}}, false)
		require.NoError(t, err)
		require.Len(t, r, 2)
		require.Equal(t, cmds1+1, infoField(t, r[0].s, "total_commands_processed"), "run %d: a GET after", i)
	}
}
