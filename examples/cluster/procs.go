package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tierkit/tierkit/examples/internal/childproc"
)

// ErrNoRedis means redis-server is not installed (scripts/setup.sh installs it).
var ErrNoRedis = errors.New("cluster: redis-server not found in PATH (run scripts/setup.sh)")

// proc is a child process in its own process group, so that stopping it also
// stops anything it started, and so a test that fails leaves nothing behind.
// Its stderr is kept (the last lines) for diagnostics.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed once the process exited and was reaped

	mu   sync.Mutex // protects tail
	tail []string   // last lines of stderr
}

// startProc starts bin with args and env (added to the parent's), and calls
// onLine with each stderr line until onLine returns false (then the rest is
// only kept in the tail). startProc returns once onLine returned false, the
// process exited, or ctx ended.
func startProc(ctx context.Context, name, bin string, args, env []string, onLine func(string) bool) (*proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = procAttr()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard
	// Started from a thread that lives as long as this process: the
	// parent-death signal (procAttr) is sent when the thread that started
	// the child exits, not the process (internal/childproc).
	if err := childproc.Start(cmd); err != nil {
		return nil, fmt.Errorf("cluster: start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		waiting := onLine != nil
		for sc.Scan() {
			line := sc.Text()
			p.keep(line)
			if waiting && !onLine(line) {
				waiting = false
				close(ready)
			}
		}
		if waiting {
			close(ready)
		}
		// The scanner stops at a line longer than its buffer: the rest is
		// read and dropped, so the child never blocks on a full pipe and
		// Wait is only called once the pipe is read to its end.
		_, _ = io.Copy(io.Discard, stderr)
		_ = cmd.Wait()
		close(p.done)
	}()
	if onLine == nil {
		return p, nil
	}
	select {
	case <-ready:
	case <-ctx.Done():
		p.kill()
		return nil, fmt.Errorf("cluster: %s did not start: %w", name, ctx.Err())
	}
	select {
	case <-p.done:
		return nil, fmt.Errorf("cluster: %s exited at start: %s", name, p.lastLines())
	default:
	}
	return p, nil
}

func (p *proc) keep(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tail = append(p.tail, line)
	if len(p.tail) > 20 {
		p.tail = p.tail[len(p.tail)-20:]
	}
}

func (p *proc) lastLines() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.tail, "\n")
}

// alive reports whether the process still runs.
func (p *proc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// kill sends SIGKILL to the process group and waits for the process to exit.
// Idempotent.
func (p *proc) kill() { p.signal(syscall.SIGKILL, 0) }

// stop sends SIGTERM to the group, waits up to grace, then kills it.
func (p *proc) stop(grace time.Duration) { p.signal(syscall.SIGTERM, grace) }

func (p *proc) signal(sig syscall.Signal, grace time.Duration) {
	if !p.alive() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	if grace > 0 {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-p.done:
			return
		case <-t.C:
		}
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// freePort returns a free loopback port. Another process may take it before
// it is used; redis-server then fails to start (waitRedis tells it from
// another server answering there) and startRedis tries again.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// redisShard is a redis-server process on a free loopback port.
type redisShard struct {
	*proc
	addr string
}

// startRedis starts a throwaway redis-server (no persistence) on a free
// loopback port and waits until it answers PING.
func startRedis(ctx context.Context) (*redisShard, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, ErrNoRedis
	}
	var last error
	for range 3 { // the free port may be taken between freePort and the listen
		port, err := redisPort()
		if err != nil {
			return nil, err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		p, err := startProc(ctx, "redis "+addr, bin, []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"}, nil, nil)
		if err != nil {
			return nil, err
		}
		if last = waitRedis(ctx, addr, p); last == nil {
			return &redisShard{proc: p, addr: addr}, nil
		}
		p.kill()
	}
	return nil, last
}

// redisPort picks the port of a new shard (a test seam: freePort).
var redisPort = freePort

// waitRedis polls addr until p answers there, p exits, or 5 s pass. An answer
// to PING is not enough: when another process took the port between freePort
// and the listen, p fails to bind and exits, but the other process (another
// cluster's shard, say) may answer first. The answering server's process_id
// must be p's.
func waitRedis(ctx context.Context, addr string, p *proc) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	return poll(ctx, 5*time.Second, 10*time.Millisecond, func() (bool, error) {
		if !p.alive() {
			return false, fmt.Errorf("cluster: redis-server on %s exited: %s", addr, p.lastLines())
		}
		info, err := c.Info(ctx, "server").Result()
		if err != nil {
			return false, nil
		}
		if pid := redisPID(info); pid != p.cmd.Process.Pid {
			return false, fmt.Errorf("cluster: %s is answered by another process (pid %d), not the redis-server started there", addr, pid)
		}
		return true, nil
	})
}

// redisPID reads process_id from the text of INFO server (0 if absent).
func redisPID(info string) int {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(line, "process_id:"); ok {
			pid, _ := strconv.Atoi(strings.TrimSpace(v))
			return pid
		}
	}
	return 0
}

// poll calls cond every interval until it returns true or an error, ctx ends,
// or within passes. It is every wait of the cluster: nothing sleeps blindly.
func poll(ctx context.Context, within, interval time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(within)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster: condition not met within %v", within)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// buildGateway compiles the reference gateway into dir once and returns the
// binary's path. It runs `go build` on the package path, which works from any
// directory of the examples module or of the workspace.
func buildGateway(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "gateway")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/tierkit/tierkit/examples/gateway")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("cluster: building the gateway: %w\n%s", err, out)
	}
	return bin, nil
}

// gatewayConfig is the subset of the gateway's JSON configuration the cluster
// writes (examples/gateway/config.go is the reference).
type gatewayConfig struct {
	Addr     string          `json:"addr"`
	HTTPAddr string          `json:"http_addr"`
	Tenants  []gatewayTenant `json:"tenants"`
	Backend  struct {
		Kind  string   `json:"kind"`
		Redis []string `json:"redis"`
		Pool  int      `json:"pool"`
	} `json:"backend"`
	MinLimit int `json:"min_limit"`
}

type gatewayTenant struct {
	Name     string `json:"name"`
	Password string `json:"password"`
}

// minLimit is the gateways' admission floor (aimd Min).
const minLimit = 2

// gatewayProc is one gateway process.
type gatewayProc struct {
	*proc
	ID, Region string
	RESP, HTTP string // listen addresses, read from its log
	// killed is set by a scenario that kills the gateway on purpose
	// (killed-gateway): its death is not a failure.
	killed bool
}

// checkAddrs refuses gateways whose listen addresses (as they reported them)
// are not all distinct, or whose HTTP address is the dashboard's: the plane
// and the scenarios would poll and measure one process as two. (The
// dashboard now listens before any gateway starts, so a gateway cannot get
// its address; the check stays as a guard.)
func checkAddrs(gws []*gatewayProc, dashboard string) error {
	owner := map[string]string{} // address -> whose, as the error names it
	if _, port, err := net.SplitHostPort(dashboard); err == nil && port != "0" {
		owner[dashboard] = "the dashboard's address"
	}
	for _, g := range gws {
		for _, a := range [...]struct{ kind, addr string }{{"RESP", g.RESP}, {"HTTP", g.HTTP}} {
			if o, dup := owner[a.addr]; dup {
				return fmt.Errorf("cluster: gateway %s's %s address %s is %s", g.ID, a.kind, a.addr, o)
			}
			owner[a.addr] = g.ID + "'s " + a.kind + " address"
		}
	}
	return nil
}

var (
	respRE = regexp.MustCompile(`resp=(\S+)`)
	httpRE = regexp.MustCompile(`http=(\S+)`)
)

// startGateway writes id's configuration into dir and starts the gateway with
// GOMAXPROCS=1 on free loopback ports; it returns once the gateway serves
// RESP and answers on its HTTP control surface.
func startGateway(ctx context.Context, bin, dir, id, region string, tenants, shards []string) (*gatewayProc, error) {
	var cfg gatewayConfig
	cfg.Addr, cfg.HTTPAddr = "127.0.0.1:0", "127.0.0.1:0"
	for _, t := range tenants {
		cfg.Tenants = append(cfg.Tenants, gatewayTenant{Name: t, Password: tenantPassword(t)})
	}
	cfg.Backend.Kind, cfg.Backend.Redis, cfg.Backend.Pool = "redis", shards, 4
	// The gateways share the machine's cgroup, so aimd's default CPU signal
	// reads the whole machine (busy with other work), not one gateway, and
	// cuts every gateway's admission limit to its floor when the machine is
	// busy. A floor of 2 commands in flight is plenty for a few dozen
	// requests/s per gateway, and lets the noisy-tenant scenario pin the
	// limit at exactly 2 (aimd.max) so that a flood of a few hundred
	// requests/s exceeds it.
	cfg.MinLimit = minLimit
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, id+".json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	g := &gatewayProc{ID: id, Region: region}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	g.proc, err = startProc(sctx, "gateway "+id, bin, []string{"-config", path}, []string{"GOMAXPROCS=1"}, func(line string) bool {
		if !strings.Contains(line, "gateway serving") {
			return true
		}
		if m := respRE.FindStringSubmatch(line); m != nil {
			g.RESP = m[1]
		}
		if m := httpRE.FindStringSubmatch(line); m != nil {
			g.HTTP = m[1]
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	if g.RESP == "" || g.HTTP == "" {
		g.kill()
		return nil, fmt.Errorf("cluster: gateway %s did not report its addresses: %s", id, g.lastLines())
	}
	hc := &http.Client{Timeout: time.Second}
	err = poll(sctx, 10*time.Second, 10*time.Millisecond, func() (bool, error) {
		resp, err := hc.Get("http://" + g.HTTP + "/control/state")
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		g.kill()
		return nil, fmt.Errorf("cluster: gateway %s control surface: %w", id, err)
	}
	return g, nil
}
