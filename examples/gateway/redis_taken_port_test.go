package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRedisStartOnTakenPort: a redis-server started on a port another server
// took meanwhile (a restart on its old port, or a free port picked and
// bound by someone else before the server could) exits at once; the helper
// must say so, not go on with the other server answering its readiness
// check. The helper fails the test, so it runs in a child test binary.
func TestRedisStartOnTakenPort(t *testing.T) {
	if os.Getenv("TIERKIT_TAKEN_PORT_CHILD") == "1" {
		other := startRedis(t)
		port, err := strconv.Atoi(strings.TrimPrefix(other.addr, "127.0.0.1:"))
		require.NoError(t, err)
		bin, err := exec.LookPath("redis-server")
		require.NoError(t, err)
		r := &redisServer{addr: other.addr}
		r.start(t, bin, port)
		t.Cleanup(r.stop)
		fmt.Println("started: the other server was taken for this one")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRedisStartOnTakenPort$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TIERKIT_TAKEN_PORT_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "%s", out)
	require.NotContains(t, string(out), "started: the other server was taken")
	require.Contains(t, string(out), "exited at start")
}
