package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGetsWithTTLConnectionLostAfterMGet: a shard whose connection is lost
// after it answered the caching tier's MGET and before the PTTLs fails the
// whole batch, as a lost connection does anywhere else in the data path (the
// shard counted failed, the GETs answered `backend shard N: ...`). Before,
// rueidis's path gave each GET the connection's error as if the shard had
// answered it, and the shard was counted as answering.
func TestGetsWithTTLConnectionLostAfterMGet(t *testing.T) {
	lostBeforePTTL(t, 2, func(d dataClient, out []opResult) error {
		return d.getsWithTTL(context.Background(), []string{"a", "b"}, out)
	})
}

// TestPipelineConnectionLostBeforePTTL: a mixed batch whose connection is
// lost after the shard answered a GET and before the PTTL that follows it
// (the caching tier's fill on a shard with expiries) fails the whole batch,
// as getsWithTTL does and as go-redis's pipeline does. Before, rueidis's
// pipeline read the lost PTTL as "expire at once": the GET, whose key
// exists, answered null, and the shard was counted as answering.
func TestPipelineConnectionLostBeforePTTL(t *testing.T) {
	ops := []op{{kind: opSet, key: "a", value: []byte("1")}, {kind: opGet, key: "b"}}
	lostBeforePTTL(t, len(ops), func(d dataClient, out []opResult) error {
		return d.pipeline(context.Background(), ops, out, true)
	})
}

// lostBeforePTTL runs call, with n results, on a rueidis and a go-redis
// client of a fakeShard that closes the connection at the first PTTL, and
// checks that each fails with an error that is not the shard's reply.
func lostBeforePTTL(t *testing.T, n int, call func(d dataClient, out []opResult) error) {
	addr := fakeShard(t, "PTTL", 0)
	fast, slow := newFastShard(addr, 1, redisAuth{}), newShardClient(addr, 1, redisAuth{})
	defer fast.close()
	defer slow.Close()
	for _, tc := range []struct {
		name string
		d    dataClient
	}{
		{"rueidis", fast},
		{"go-redis", goredisData{slow}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]opResult, n)
			err := call(tc.d, out)
			assert.Error(t, err, "results: %+v", out)
			if err != nil {
				assert.False(t, tc.d.replyErr(err), "%v", err)
			}
		})
	}
}

// fakeShard serves a RESP2 server on a loopback port that answers MGET with
// a value per key and extra more (fewer if negative), PTTL with -1, PING
// with PONG, HELLO with an unknown command error (as Redis 5) and anything
// else with OK, and closes the connection at the
// first command named drop (after the replies before it).
func fakeShard(t *testing.T, drop string, extra int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				r, w := bufio.NewReader(c), bufio.NewWriter(c)
				for {
					args, err := readCommand(r)
					if err != nil {
						return
					}
					switch name := strings.ToUpper(args[0]); name {
					case drop:
						_ = w.Flush()
						return
					case "MGET":
						n := max(len(args)-1+extra, 0)
						fmt.Fprintf(w, "*%d\r\n", n)
						for range n {
							w.WriteString("$1\r\nv\r\n")
						}
					case "PTTL":
						w.WriteString(":-1\r\n")
					case "HELLO": // go-redis then speaks RESP2; before, it failed to connect
						w.WriteString("-ERR unknown command 'HELLO'\r\n")
					case "PING":
						w.WriteString("+PONG\r\n")
					default:
						w.WriteString("+OK\r\n")
					}
					if r.Buffered() == 0 {
						if w.Flush() != nil {
							return
						}
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// readCommand reads one RESP array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("bad command %q", line)
	}
	args := make([]string, n)
	for i := range args {
		if line, err = r.ReadString('\n'); err != nil {
			return nil, err
		}
		l, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
		if err != nil || l < 0 {
			return nil, fmt.Errorf("bad bulk %q", line)
		}
		b := make([]byte, l+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		args[i] = string(b[:l])
	}
	return args, nil
}
