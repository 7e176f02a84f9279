//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/childproc"
)

// TestMain runs the proxy itself when EVFLOOR_SERVE is set ("addr
// shard1,shard2"): the end-to-end test starts the test binary again as the
// server, since the loop holds its thread until the process ends.
func TestMain(m *testing.M) {
	if a := os.Getenv("EVFLOOR_SERVE"); a != "" {
		addr, shards, _ := strings.Cut(a, " ")
		l, err := newLoop(addr, strings.Split(shards, ","))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, l.run())
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestForwarding: pipelined SETs and GETs over two real Redis shards come
// back in order, each key on the shard shardOf names; a missing key reads as
// null, a key read twice in one pass is asked once and answered twice.
func TestForwarding(t *testing.T) {
	addr, shards := startFloor(t)
	var k [2]string // a key on each shard
	for i := 0; k[0] == "" || k[1] == ""; i++ {
		key := fmt.Sprint("key", i)
		k[shardOf([]byte(key), 2)] = key
	}
	req := commands(
		[]string{"SET", k[0], "v0"}, []string{"SET", k[1], "v1"},
		[]string{"GET", k[0]}, []string{"GET", k[1]}, []string{"GET", "missing"}, []string{"GET", k[0]}, []string{"PING"},
	)
	got := roundTrip(t, addr, req, 7)
	assert.Equal(t, []string{"+OK\r\n", "+OK\r\n", "$2\r\nv0\r\n", "$2\r\nv1\r\n", "$-1\r\n", "$2\r\nv0\r\n", "+PONG\r\n"}, got)

	for i, s := range shards { // each key is on its own shard
		get := appendCommand(nil, []byte("GET"), []byte(k[i]))
		assert.Equal(t, []string{fmt.Sprintf("$2\r\nv%d\r\n", i)}, roundTrip(t, s, get, 1))
	}
}

// TestReadBeforeWrite: a GET pipelined before a SET of its key reads the
// value from before the SET, as on Redis, though both arrive in one pass and
// the pass's GETs go out as one MGET; a GET after the SET reads its value.
func TestReadBeforeWrite(t *testing.T) {
	addr, _ := startFloor(t)
	req := commands(
		[]string{"GET", "k"}, []string{"SET", "k", "v1"}, []string{"GET", "k"},
		[]string{"SET", "k", "v2"}, []string{"GET", "other"}, []string{"GET", "k"},
	)
	got := roundTrip(t, addr, req, 6)
	assert.Equal(t, []string{"$-1\r\n", "+OK\r\n", "$2\r\nv1\r\n", "+OK\r\n", "$-1\r\n", "$2\r\nv2\r\n"}, got)
}

// startFloor starts two Redis shards and the proxy (the test binary again,
// see TestMain) in front of them, and returns their addresses.
func startFloor(t *testing.T) (addr string, shards []string) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err, "redis-server is needed: run scripts/setup.sh")
	for range 2 {
		port := freePort(t)
		cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
		require.NoError(t, childproc.Start(cmd)) // dies with this process, cleanups or not
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		shards = append(shards, "127.0.0.1:"+strconv.Itoa(port))
	}
	for _, s := range shards {
		waitPing(t, s)
	}
	addr = "127.0.0.1:" + strconv.Itoa(freePort(t))
	srv := exec.Command(os.Args[0], "-test.run=^$")
	srv.Env = append(os.Environ(), "EVFLOOR_SERVE="+addr+" "+strings.Join(shards, ","))
	require.NoError(t, childproc.Start(srv))
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	waitPing(t, addr)
	return addr, shards
}

// commands encodes each list of arguments as a RESP command, in one buffer
// (sent in one write, the proxy reads them in one pass).
func commands(cmds ...[]string) []byte {
	var req []byte
	for _, args := range cmds {
		var bs [][]byte
		for _, a := range args {
			bs = append(bs, []byte(a))
		}
		req = appendCommand(req, bs...)
	}
	return req
}

// roundTrip sends req to addr and reads n replies.
func roundTrip(t *testing.T, addr string, req []byte, n int) []string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = c.Write(req)
	require.NoError(t, err)
	var in []byte
	var out []string
	buf := make([]byte, 4096)
	for len(out) < n {
		m, ok := replyLen(in)
		if ok {
			out = append(out, string(in[:m]))
			in = in[m:]
			continue
		}
		r, err := c.Read(buf)
		require.NoError(t, err)
		in = append(in, buf[:r]...)
	}
	return out
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitPing polls addr with PING until it answers (bounded: 10 s; the proxy
// is this test binary started again, which under -race on a loaded machine
// can take seconds to listen).
func waitPing(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			_ = c.SetDeadline(time.Now().Add(time.Second))
			_, err = c.Write(appendCommand(nil, []byte("PING")))
			buf := make([]byte, 16)
			n, rerr := c.Read(buf)
			c.Close()
			if err == nil && rerr == nil && string(buf[:n]) == "+PONG\r\n" {
				return
			}
		}
		require.True(t, time.Now().Before(deadline), "%s did not answer PING", addr)
		time.Sleep(10 * time.Millisecond)
	}
}
