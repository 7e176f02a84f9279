package controlplane_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/examples/internal/childproc"
	"github.com/tierkit/tierkit/internal/leak"
	"github.com/tierkit/tierkit/rollout"
)

// gatewayBin is the reference gateway, built on first use (fuzz workers and
// the tests that need no process skip the build) and run as child processes on
// free loopback ports.
var (
	buildOnce  sync.Once
	gatewayBin string
	buildErr   error
	binDir     string
)

// TestMain also fails the run when the tests left a goroutine behind (a
// Follow or a plane's Run not stopped, a poll or a server never closed):
// each test would need its own leak.Check, and none had one.
func TestMain(m *testing.M) {
	before := leak.Snapshot()
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	if code == 0 {
		// Goroutines on their way out (a server's connections closing) get
		// 5 s to end.
		left := leak.Leaked(before)
		for deadline := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = leak.Leaked(before) {
			time.Sleep(10 * time.Millisecond)
		}
		if len(left) > 0 {
			fmt.Fprintf(os.Stderr, "leak: %d goroutine(s) still running after the tests:\n\n%s\n", len(left), strings.Join(left, "\n\n"))
			code = 1
		}
	}
	os.Exit(code)
}

func buildGateway(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "controlplane-test"); buildErr != nil {
			return
		}
		gatewayBin = filepath.Join(binDir, "gateway")
		out, err := exec.Command("go", "build", "-o", gatewayBin, "../gateway").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building the gateway: %w\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return gatewayBin
}

// gatewayProc is a gateway process (memkv backend) on free loopback ports.
type gatewayProc struct {
	resp, http string
	cmd        *exec.Cmd
	drained    chan struct{}
}

var (
	respAddr = regexp.MustCompile(`resp=(\S+)`)
	httpAddr = regexp.MustCompile(`http=(\S+)`)
)

func startGateway(t testing.TB) *gatewayProc {
	t.Helper()
	return startGatewayCmd(t, exec.Command(buildGateway(t), "-addr", "127.0.0.1:0", "-http", "127.0.0.1:0"), gatewayStartWait)
}

// gatewayStartWait bounds the wait for a gateway's "gateway serving" line: a
// gateway serves within a second or two, under -race on a loaded machine too.
const gatewayStartWait = 30 * time.Second

// startGatewayCmd starts cmd as a gateway and reads its addresses from its
// log (startGateway's command, or another in a test of the helper). A child
// that has neither served nor exited within wait (hung at start, or logging
// on without serving) is killed, and the start fails.
func startGatewayCmd(t testing.TB, cmd *exec.Cmd, wait time.Duration) *gatewayProc {
	t.Helper()
	g := &gatewayProc{cmd: cmd, drained: make(chan struct{})}
	g.cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	stderr, err := g.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, childproc.Start(g.cmd)) // dies with this process, cleanups or not
	t.Cleanup(func() { g.stop() })
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr) // a line over 64 KB ends the scan
		for sc.Scan() {                // bounded by the process's exit
			line := sc.Text()
			if strings.Contains(line, "gateway serving") {
				if m := respAddr.FindStringSubmatch(line); m != nil {
					g.resp = m[1]
				}
				if m := httpAddr.FindStringSubmatch(line); m != nil {
					g.http = m[1]
				}
				return
			}
		}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-scanned:
	case <-timer.C:
		_ = g.cmd.Process.Kill() // its exit ends the scan
		<-scanned
	}
	// The drain starts before the check below: stop, the cleanup, waits
	// for it, also after a start that failed.
	go func() { _, _ = io.Copy(io.Discard, stderr); close(g.drained) }()
	require.NotEmpty(t, g.http, "the gateway did not start (within %v)", wait)
	return g
}

// stop kills the process and waits for it. Idempotent.
func (g *gatewayProc) stop() {
	if g.cmd.ProcessState != nil {
		return
	}
	_ = g.cmd.Process.Signal(syscall.SIGKILL)
	<-g.drained
	_ = g.cmd.Wait()
}

// The plane polls real gateway processes: they come up with a utilization, the
// loaded one reads hotter than the idle one, tenants appear, and a killed gateway
// goes down and then draining.
func TestRealGateways(t *testing.T) {
	a, b := startGateway(t), startGateway(t)
	p, err := controlplane.New(controlplane.Config{
		Regions: []controlplane.Region{{Name: "eu"}},
		Gateways: []controlplane.Gateway{
			{ID: "a", Region: "eu", RESP: a.resp, HTTP: a.http, Cores: 1},
			{ID: "b", Region: "eu", RESP: b.resp, HTTP: b.http, Cores: 1},
		},
		Cadence:    100 * time.Millisecond,
		DrainAfter: 2,
		// Not Cadence/2: on a loaded machine (CI's race run on 2 shared
		// cores) a gateway child with one P can take more than 50 ms to
		// answer, and a timed-out poll reads gateway b as down, which then
		// drains it. b's stop below is refused at once, not timed out.
		PollTimeout: 10 * time.Second,
	})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	load := make(chan struct{})
	go func() { // load on gateway a only, until the test ends
		defer close(load)
		c := redis.NewClient(&redis.Options{Addr: a.resp, PoolSize: 4})
		defer c.Close()
		for i := 0; ctx.Err() == nil; i++ {
			_ = c.Set(ctx, fmt.Sprintf("k%d", i%1000), "v", 0).Err()
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		require.NoError(t, p.Tick(ctx, time.Now()))
		st := p.State()
		ha, hb := host(st, "a"), host(st, "b")
		if ha.CPU > 0.05 && ha.Rate > 0 && ha.CPU > 2*hb.CPU && len(st.Tenants) > 0 {
			assert.Equal(t, controlplane.HealthUp, hb.Health)
			assert.Equal(t, "default", st.Tenants[0].Name)
			assert.Positive(t, st.Tenants[0].RequestRate)
			break
		}
		require.True(t, time.Now().Before(deadline), "no utilization from the loaded gateway: %+v", ha)
		time.Sleep(100 * time.Millisecond) // the cadence: CPU is measured over wall time
	}
	cancel()
	<-load
	// A knob changed at runtime through the gateway's control API shows.
	resp, err := http.Post("http://"+a.http+"/control/", "application/json",
		strings.NewReader(`{"who": "test", "why": "knob display", "changes": [{"knob": "gateway.coalesce", "value": false}]}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, p.Tick(context.Background(), time.Now()))
	ha := host(p.State(), "a")
	assert.Equal(t, []string{"gateway.coalesce"}, ha.Changed)
	assert.Equal(t, "false", ha.Knobs["gateway.coalesce"])
	assert.Empty(t, host(p.State(), "b").Changed)
	followRealGateways(t, p, a, b)

	b.stop()
	for range 2 {
		require.NoError(t, p.Tick(context.Background(), time.Now()))
	}
	st := p.State()
	hb := host(st, "b")
	assert.Equal(t, controlplane.HealthDown, hb.Health)
	assert.True(t, hb.Draining)
	assert.Contains(t, hb.Error, "refused")
	r, _ := p.Routes()
	assert.Equal(t, []string{b.resp}, r.Draining)
	assert.Equal(t, controlplane.HealthUp, host(st, "a").Health)
}

// followRealGateways runs a thin client on the plane's published routes against
// the real gateways: with the rollout at 100% every request goes through a
// gateway, both gateways get keys, and a drained gateway gets no new request.
func followRealGateways(t *testing.T, p *controlplane.Plane, a, b *gatewayProc) {
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "app", Percent: 100}}}))
	c, err := client.New(client.Config{Service: "app", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	followed := make(chan error, 1)
	go func() { followed <- controlplane.Follow(ctx, srv.URL+"/api/routes", c, 5*time.Millisecond) }()
	defer func() { cancel(); require.NoError(t, <-followed) }()
	waitFor(t, func() bool { tg, err := c.Route("k"); return err == nil && tg.Path == client.PathGateway })
	for i := range 50 {
		key := fmt.Sprintf("user:%d", i)
		require.NoError(t, c.Set(ctx, key, "v", 0))
		v, err := c.Get(ctx, key)
		require.NoError(t, err)
		require.Equal(t, "v", v)
	}
	st := c.Stats()
	assert.Equal(t, uint64(100), st.Gateway)
	assert.Positive(t, st.Hosts[a.resp])
	assert.Positive(t, st.Hosts[b.resp])

	require.NoError(t, p.Drain("a"))
	waitFor(t, func() bool { r, _ := c.Routes(); return len(r.Draining) == 1 })
	before := c.Stats().Hosts[a.resp]
	for i := range 50 {
		require.NoError(t, c.Set(ctx, fmt.Sprintf("user:%d", i), "w", 0))
	}
	assert.Equal(t, before, c.Stats().Hosts[a.resp], "the drained gateway got new requests")
	assert.Zero(t, c.Stats().Failures)
	require.NoError(t, p.Undrain("a"))
}
