package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInlineLineBounded: an inline command's line is at most 64 KiB, as in
// Redis (PROTO_INLINE_MAX_SIZE): a longer one, whole or still arriving, ends
// the stream with "too big inline request", the commands before it served; a
// line of exactly 64 KiB is read. Splitting 4 MiB of one-letter words held
// about 16 times its bytes.
func TestInlineLineBounded(t *testing.T) {
	words := func(n int) string { return strings.Repeat("a ", n/2) } // n bytes
	for _, tt := range []struct {
		name string
		in   string
		want int // commands read
		err  error
	}{
		{"64 KiB line", "PING\r\n" + words(maxInline) + "\n", 2, nil},
		{"64 KiB line ending in CRLF", "PING\r\n" + words(maxInline) + "\r\n", 2, nil},
		{"a longer line ending in CRLF", "PING\r\n" + words(maxInline+2) + "\r\n", 1, errBigInline},
		{"a longer line, its CR arrived", "PING\r\n" + words(maxInline+2) + "\r", 1, errBigInline},
		{"a longer line", "PING\r\n" + words(maxInline+2) + "\n", 1, errBigInline},
		{"a longer line still arriving", "PING\r\n" + words(maxInline+2), 1, errBigInline},
		{"multi-bulk commands are not bounded by it", "*2\r\n$4\r\nECHO\r\n$70000\r\n" + strings.Repeat("a", 70000) + "\r\n", 1, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, chunk := range []int{1000, 1 << 20} {
				rr := newRESPReader(&chunkReader{data: []byte(tt.in), n: chunk}, 1<<20)
				got, err := readAll(rr.ReadCommands)
				assert.Len(t, got, tt.want, "chunks of %d", chunk)
				if tt.err != nil {
					assert.ErrorIs(t, err, tt.err, "chunks of %d", chunk)
				}
			}
		})
	}
}

// TestInlineLineOf64KiBAsRedis: an inline line of exactly 64 KiB ended by
// CRLF, as telnet and most terminals end it, is read, as redis-server reads
// it; the CR counted against the bound, and the gateway answered "too big
// inline request" and closed the connection. A byte more is refused (Redis
// reads a longer line whose end arrives in the read that passes its bound).
func TestInlineLineOf64KiBAsRedis(t *testing.T) {
	rs := startRedis(t)
	gw := startGateway(t, Config{HTTPAddr: "-"})
	line := func(n int) []byte { return []byte("ECHO " + strings.Repeat("x", n-len("ECHO ")) + "\r\nPING\r\n") }
	want := exchange(t, rs.addr, line(maxInline))
	require.True(t, strings.HasSuffix(string(want), "\r\n+PONG\r\n"), "redis: %s", clip(want))
	require.Equal(t, clip(want), clip(exchange(t, gw.Addr(), line(maxInline))))
	require.Equal(t, "-ERR Protocol error: too big inline request\r\n", string(exchange(t, gw.Addr(), line(maxInline+1))))
}
