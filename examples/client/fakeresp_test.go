package client_test

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// fakeRESP serves RESP on a free loopback port, answering each command with
// reply(args) written as is (raw RESP), so tests can send replies no real
// store would. The go-redis handshake (HELLO) is refused, as an old server
// would, so the client falls back to RESP2. It stops at cleanup.
func fakeRESP(t testing.TB, reply func(args []string) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex // protects conns
		conns []net.Conn
	)
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			wg.Go(func() { serveRESP(conn, reply) })
		}
	})
	return ln.Addr().String()
}

func serveRESP(conn net.Conn, reply func(args []string) string) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	for {
		args, err := readCommand(br)
		if err != nil {
			return
		}
		out := "-ERR unknown command\r\n"
		if !strings.EqualFold(args[0], "HELLO") {
			out = reply(args)
		}
		if _, err := io.WriteString(conn, out); err != nil {
			return
		}
	}
}

// readCommand reads one command sent as a RESP array of bulk strings.
func readCommand(br *bufio.Reader) ([]string, error) {
	n, err := readLen(br, '*')
	if err != nil {
		return nil, err
	}
	args := make([]string, n)
	for i := range args {
		m, err := readLen(br, '$')
		if err != nil {
			return nil, err
		}
		b := make([]byte, m+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, err
		}
		args[i] = string(b[:m])
	}
	if n == 0 {
		return nil, io.ErrUnexpectedEOF
	}
	return args, nil
}

func readLen(br *bufio.Reader, prefix byte) (int, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 3 || line[0] != prefix {
		return 0, io.ErrUnexpectedEOF
	}
	return strconv.Atoi(strings.TrimRight(line[1:], "\r\n"))
}

// routedClient is a client of service "s" in region "eu" (cfg's other fields
// as given) whose routes send every key through a ring of hosts, weight 1
// each. It is closed at cleanup (Close may be called before: it is
// idempotent).
func routedClient(t testing.TB, cfg client.Config, hosts ...string) *client.Client {
	t.Helper()
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	require.NoError(t, err)
	nodes := make([]hashring.Node, len(hosts))
	for i, h := range hosts {
		nodes[i] = hashring.Node{ID: h, Weight: 1}
	}
	ring, err := hashring.New(hashring.Config{}, nodes)
	require.NoError(t, err)
	cfg.Service, cfg.Region = "s", "eu"
	c, err := client.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring}, Rollout: flags}))
	return c
}

// keyRouted returns the first key "k0", "k1", ... whose route ok accepts.
func keyRouted(t testing.TB, c *client.Client, ok func(client.Target) bool) string {
	t.Helper()
	for i := range 100_000 {
		k := "k" + strconv.Itoa(i)
		if tg, err := c.Route(k); err == nil && ok(tg) {
			return k
		}
	}
	t.Fatal("no key of 100,000 routed as asked")
	return ""
}
