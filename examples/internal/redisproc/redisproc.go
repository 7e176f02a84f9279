package redisproc

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tierkit/tierkit/examples/internal/childproc"
)

// Proc is a redis-server process started by Start.
type Proc struct {
	Addr   string        // 127.0.0.1:port
	Cmd    *exec.Cmd     // the process
	Exited chan struct{} // closed once Cmd exited and was reaped
}

// Ping is the readiness check of a plain server: PING, which a server still
// loading its dataset refuses.
func Ping(c *redis.Client) error { return c.Ping(context.Background()).Err() }

// Start starts bin on 127.0.0.1:port (no persistence, in a temporary
// directory of its own removed when it exits, extra arguments appended) and
// waits until ready, given a client that logs in with user and pass ("" for
// none), answers without error and the server answering is this process
// (INFO's process_id). It returns an error, and leaves nothing
// running, if the process exits first (the port was taken) or is not ready
// within 5 s.
func Start(bin string, port int, user, pass string, ready func(*redis.Client) error, extra ...string) (*Proc, error) {
	p := &Proc{Addr: "127.0.0.1:" + strconv.Itoa(port), Exited: make(chan struct{})}
	// A directory of its own (extra may name another): a replica's full
	// sync writes dump.rdb there, and a server loads the dump.rdb it finds
	// there at start. In the test's working directory, every later server
	// of the run, and of later runs, started with what a replica had left.
	dir, err := os.MkdirTemp("", "redisproc-")
	if err != nil {
		return nil, err
	}
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--loglevel", "warning", "--dir", dir}, extra...)
	p.Cmd = exec.Command(bin, args...)
	if err := childproc.Start(p.Cmd); err != nil { // dies with this process, cleanups or not
		_ = os.RemoveAll(dir)
		return nil, err
	}
	go func() { _ = p.Cmd.Wait(); _ = os.RemoveAll(dir); close(p.Exited) }()
	pid := strconv.Itoa(p.Cmd.Process.Pid)
	// Bounded readiness poll: the server has no way to tell us it listens.
	// Each check is bounded too: on a port held by another process that
	// accepts and never answers, a check waited out go-redis's 3 s read
	// timeout, and Start took that long to see the exit.
	c := redis.NewClient(&redis.Options{Addr: p.Addr, Username: user, Password: pass, MaxRetries: -1,
		DialTimeout: checkTimeout, ReadTimeout: checkTimeout, WriteTimeout: checkTimeout})
	defer c.Close()
	for deadline := time.Now().Add(startTimeout); ; {
		select {
		case <-p.Exited:
			return nil, fmt.Errorf("redis-server on %s exited at start (port taken?)", p.Addr)
		default:
		}
		if ready(c) == nil {
			s, err := c.Info(context.Background(), "server").Result()
			if err == nil && strings.Contains(s, "\r\nprocess_id:"+pid+"\r\n") {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			p.Stop()
			return nil, fmt.Errorf("redis-server on %s did not start", p.Addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startTimeout bounds Start's wait for a server to get ready; checkTimeout
// bounds each readiness check's dial, write and read.
const (
	startTimeout = 5 * time.Second // generous: a loaded CI machine starts processes slowly
	checkTimeout = 250 * time.Millisecond
)

// StartFree is Start on a free loopback port, tried up to tries times (at
// least once), each time on another port; it returns the last error.
func StartFree(bin string, tries int, user, pass string, ready func(*redis.Client) error, extra ...string) (*Proc, error) {
	var err error
	for range max(tries, 1) {
		var port int
		if port, err = FreePort(); err != nil {
			return nil, err
		}
		var p *Proc
		if p, err = Start(bin, port, user, pass, ready, extra...); err == nil {
			return p, nil
		}
	}
	return nil, err
}

// FreePort returns a loopback port that was free when it was picked.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	return port, ln.Close()
}

// Stop kills p's process and waits until it was reaped. Idempotent.
func (p *Proc) Stop() {
	_ = p.Cmd.Process.Kill()
	<-p.Exited
}
