package client_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/childproc"
	"github.com/tierkit/tierkit/examples/internal/redisproc"
	"github.com/tierkit/tierkit/hashring"
)

// gatewayBin is the reference gateway, built once by TestMain. The gateway is
// a command (package main), so the tests run it as a child process on a free
// loopback port: a real gateway, killed or drained like a real one.
var gatewayBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "client-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gatewayBin = filepath.Join(dir, "gateway")
	build := exec.Command("go", "build", "-o", gatewayBin, "../gateway")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the gateway:", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// gatewayProc is a gateway process serving RESP on a free loopback port.
type gatewayProc struct {
	addr    string
	cmd     *exec.Cmd
	drained chan struct{} // closed when its stderr is drained (the process exited)
}

var respAddr = regexp.MustCompile(`resp=(\S+)`)

// startGateway starts a gateway (memkv backend, or the redis-server shards
// given) and stops it at cleanup.
func startGateway(t testing.TB, redisShards ...string) *gatewayProc {
	t.Helper()
	args := []string{"-addr", "127.0.0.1:0", "-http", "-"}
	if len(redisShards) > 0 {
		args = append(args, "-redis", strings.Join(redisShards, ","))
	}
	g := &gatewayProc{cmd: exec.Command(gatewayBin, args...), drained: make(chan struct{})}
	stderr, err := g.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, childproc.Start(g.cmd)) // dies with this process, cleanups or not
	t.Cleanup(func() { g.stop(syscall.SIGKILL) })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() { // the gateway logs its address once it serves; bounded by its exit
		if m := respAddr.FindStringSubmatch(sc.Text()); m != nil && strings.Contains(sc.Text(), "gateway serving") {
			g.addr = m[1]
			break
		}
	}
	require.NotEmpty(t, g.addr, "the gateway did not start")
	go func() { _, _ = io.Copy(io.Discard, stderr); close(g.drained) }()
	return g
}

// stop sends sig and waits for the process to exit. Idempotent.
func (g *gatewayProc) stop(sig syscall.Signal) {
	if g.cmd.ProcessState != nil {
		return
	}
	_ = g.cmd.Process.Signal(sig)
	<-g.drained
	_ = g.cmd.Wait()
}

// startRedis starts a throwaway redis-server on a free loopback port, as the
// gateway's tests do (redisproc: another port if the picked one was taken
// meanwhile, never another test's server for its own), and stops it at
// cleanup.
func startRedis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err, "redis-server is needed: run scripts/setup.sh")
	p, err := redisproc.StartFree(bin, 5, "", "", redisproc.Ping)
	require.NoError(t, err)
	t.Cleanup(p.Stop)
	return p.Addr
}

// tier is n gateways in front of shared redis-server shards.
type tier struct {
	gws    []*gatewayProc
	shards []string
}

func startTier(t testing.TB, gateways, shards int) *tier {
	t.Helper()
	tr := &tier{}
	for range shards {
		tr.shards = append(tr.shards, startRedis(t))
	}
	for range gateways {
		tr.gws = append(tr.gws, startGateway(t, tr.shards...))
	}
	return tr
}

// ring builds a ring of gws with weights (1 each when nil) and sends it
// through its wire encoding, as a control plane would publish it.
func ring(t testing.TB, gws []*gatewayProc, weights []float64) *hashring.Ring {
	t.Helper()
	nodes := make([]hashring.Node, len(gws))
	for i, g := range gws {
		nodes[i] = hashring.Node{ID: g.addr, Weight: 1}
		if weights != nil {
			nodes[i].Weight = weights[i]
		}
	}
	r, err := hashring.New(hashring.Config{}, nodes)
	require.NoError(t, err)
	return wire(t, r)
}

func wire(t testing.TB, r *hashring.Ring) *hashring.Ring {
	t.Helper()
	b, err := r.MarshalBinary()
	require.NoError(t, err)
	out, err := hashring.Unmarshal(b)
	require.NoError(t, err)
	return out
}
