package main

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReaderLimitAtMaxInt: a max_request_bytes of the largest int (a file's
// way of saying "no limit": the config takes it) reads commands of any size.
// The buffer's growth stopped at min(twice its size, limit+1), and limit+1
// overflowed to the smallest int: every command past the first 4 KiB
// buffer was refused as "request too large".
func TestReaderLimitAtMaxInt(t *testing.T) {
	val := strings.Repeat("v", 10_000)
	cmd := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + strconv.Itoa(len(val)) + "\r\n" + val + "\r\n"
	rd := newRESPReader(bytes.NewReader([]byte(cmd)), math.MaxInt)
	got, err := readAll(rd.ReadCommands)
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, [][]string{{"SET", "k", val}}, got)

	c, err := Config{Limits: Limits{MaxRequestBytes: math.MaxInt}}.withDefaults()
	require.NoError(t, err, "the config takes it")
	require.Equal(t, math.MaxInt, c.Limits.MaxRequestBytes)
}
