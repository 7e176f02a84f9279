package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestInfoSeveralSections: INFO with several sections answers each of them,
// as Redis (7.0 on) does and as go-redis's Info(ctx, "server", "clients")
// and InfoMap ask. Only the first was answered: the client found the
// others' fields missing.
func TestInfoSeveralSections(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	for _, proto := range []int{2, 3} {
		c := client(t, in, &redis.Options{Protocol: proto})
		m, err := c.InfoMap(context.Background(), "server", "CLIENTS", "tenants").Result()
		require.NoError(t, err)
		require.Contains(t, m, "Server")
		require.Contains(t, m, "Clients")
		require.Contains(t, m, "Tenants")
		require.NotContains(t, m, "Stats", "a section not asked for")
		require.Equal(t, "7.2.0", m["Server"]["redis_version"])
		require.NotEmpty(t, m["Clients"]["connected_clients"])
		require.Contains(t, m["Tenants"], "tenant_default")
	}
}

// TestInfoForRedisCliStat: redis-cli --stat reads used_memory and
// blocked_clients; without them it printed LONG_MIN in its mem and blocked
// columns (found by a review).
func TestInfoForRedisCliStat(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	m, err := client(t, in, nil).InfoMap(context.Background()).Result()
	require.NoError(t, err)
	require.Equal(t, "0", m["Clients"]["blocked_clients"])
	used, err := strconv.ParseUint(m["Memory"]["used_memory"], 10, 64)
	require.NoError(t, err)
	require.Positive(t, used)
	require.Regexp(t, `^[0-9.]+[BKMG]$`, m["Memory"]["used_memory_human"])
	for _, tc := range []struct {
		n    uint64
		want string
	}{{0, "0B"}, {1023, "1023B"}, {1024, "1.00K"}, {1_184_890, "1.13M"}, {5 << 30, "5.00G"}, {3 << 40, "3072.00G"}} {
		require.Equal(t, tc.want, humanBytes(tc.n))
	}
}

// TestInfoTextAsRedis: INFO and CLIENT INFO answer a verbatim string ("=",
// format "txt") under RESP3 and a bulk string under RESP2, as Redis 7 does,
// and INFO's sections are separated by one blank line with none after the
// last. The gateway answered a bulk string under RESP3 and ended INFO with a
// blank line (found by a review).
func TestInfoTextAsRedis(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	conn, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	rd := bufio.NewReader(conn)
	// readText reads one bulk or verbatim string and returns its type byte
	// and body (a verbatim one without its "txt:").
	readText := func() (byte, string) {
		head, err := rd.ReadString('\n')
		require.NoError(t, err)
		require.Contains(t, "$=", head[:1], "reply %q", head)
		n, err := strconv.Atoi(strings.TrimSuffix(head[1:], "\r\n"))
		require.NoError(t, err)
		body := make([]byte, n+2)
		_, err = io.ReadFull(rd, body)
		require.NoError(t, err)
		text := string(body[:n])
		if head[0] == '=' {
			require.True(t, strings.HasPrefix(text, "txt:"), "%q", text)
			text = text[4:]
		}
		return head[0], text
	}
	for _, tc := range []struct {
		hello string
		kind  byte
	}{{"", '$'}, {"HELLO 3\r\n", '='}} {
		if tc.hello != "" {
			_, err = conn.Write([]byte(tc.hello))
			require.NoError(t, err)
			_, err = rd.ReadString('\n') // the map's header
			require.NoError(t, err)
			// HELLO's map: skip its 7 pairs of one-line and array fields
			// by reading until the next command's reply starts.
			_, err = conn.Write([]byte("PING\r\n"))
			require.NoError(t, err)
			for line := ""; line != "+PONG\r\n"; {
				line, err = rd.ReadString('\n')
				require.NoError(t, err)
			}
		}
		_, err = conn.Write([]byte("INFO server clients\r\nCLIENT INFO\r\n"))
		require.NoError(t, err)
		kind, info := readText()
		require.Equal(t, tc.kind, kind)
		require.True(t, strings.HasPrefix(info, "# Server\r\n"), "%q", info)
		require.Contains(t, info, "\r\n\r\n# Clients\r\n")
		require.True(t, strings.HasSuffix(info, "\r\n"))
		require.False(t, strings.HasSuffix(info, "\r\n\r\n"), "no blank line after the last section")
		kind, ci := readText()
		require.Equal(t, tc.kind, kind)
		require.True(t, strings.HasPrefix(ci, "id="), "%q", ci)
	}
}

// TestInfoSectionWordsAsRedis: INFO reads its section words as Redis does,
// without case and as C strings (a word with a NUL byte names the section
// its bytes before the NUL name): among the sections both have, the same
// ones come back. "server\x00x" answered nothing where Redis answers Server.
func TestInfoSectionWordsAsRedis(t *testing.T) {
	rs := startRedis(t)
	gw := startGateway(t, Config{HTTPAddr: "-"})
	p, err := dialPair(rs.addr, gw.Addr())
	require.NoError(t, err)
	defer p.close()
	headers := func(v rval) []string {
		var hs []string
		for _, l := range strings.Split(v.s, "\r\n") {
			if h, ok := strings.CutPrefix(l, "# "); ok && strings.Contains("Server Clients Memory Stats Replication Keyspace", h) {
				hs = append(hs, h)
			}
		}
		return hs
	}
	for _, c := range [][]string{
		{"INFO", "server\x00x"}, {"INFO", "SERVER"}, {"INFO", "keyspace\x00", "Clients"}, {"INFO", "\x00server"},
		{"INFO", "default\x00x"}, {"INFO", "ALL\x00"}, {"INFO", "memory", "bogus\x00server"},
	} {
		want, werr := p.redis.do([][]string{c}, false)
		got, gerr := p.gw.do([][]string{c}, false)
		require.NoError(t, werr)
		require.NoError(t, gerr)
		require.Equal(t, headers(want[0]), headers(got[0]), "%s", quoteCmd(c))
	}
}
