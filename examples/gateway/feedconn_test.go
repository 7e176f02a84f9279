package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frame encodes a RESP array of bulk strings (and an integer, if count >= 0).
func frame(count int, elts ...string) string {
	var b strings.Builder
	n := len(elts)
	if count >= 0 {
		n++
	}
	b.WriteString("*" + itoa(n) + "\r\n")
	for _, e := range elts {
		b.WriteString("$" + itoa(len(e)) + "\r\n" + e + "\r\n")
	}
	if count >= 0 {
		b.WriteString(":" + itoa(count) + "\r\n")
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

type gotFrame struct {
	kind             feedFrameKind
	channel, payload string
}

func readFrames(t *testing.T, r io.Reader) ([]gotFrame, error) {
	t.Helper()
	fr := newFeedReader(r)
	var got []gotFrame
	for {
		f, err := fr.next()
		if err != nil {
			return got, err
		}
		got = append(got, gotFrame{f.kind, string(f.channel), string(f.payload)})
	}
}

func TestFeedReader(t *testing.T) {
	stream := frame(1, "psubscribe", "__keyspace@0__:*") +
		frame(2, "subscribe", "marker") +
		frame(-1, "pmessage", "__keyspace@0__:*", "__keyspace@0__:user:1", "set") +
		frame(-1, "message", "marker", "1700000000000000000") +
		frame(-1, "pmessage", "__keyspace@0__:*", "__keyspace@0__:", "del") + // an empty key
		frame(1, "unsubscribe", "other")
	want := []gotFrame{
		{framePSubscribe, "__keyspace@0__:*", ""},
		{frameSubscribe, "marker", ""},
		{framePMessage, "__keyspace@0__:user:1", "set"},
		{frameMessage, "marker", "1700000000000000000"},
		{framePMessage, "__keyspace@0__:", "del"},
		{frameOther, "", ""},
	}
	for _, tt := range []struct {
		name string
		r    func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one byte per read", iotest.OneByteReader},
		{"half the buffer per read", iotest.HalfReader},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readFrames(t, tt.r(strings.NewReader(stream)))
			assert.ErrorIs(t, err, io.EOF, "a clean end of stream between frames")
			assert.Equal(t, want, got)
		})
	}
}

// A frame that is not complete never blocks the ones before it: a reader
// that has all of a frame returns it without reading further.
func TestFeedReaderDoesNotReadAhead(t *testing.T) {
	pr, pw := io.Pipe()
	fr := newFeedReader(pr)
	go func() { _, _ = pw.Write([]byte(frame(1, "psubscribe", "p"))) }()
	f, err := fr.next()
	require.NoError(t, err)
	assert.Equal(t, framePSubscribe, f.kind)
	pw.Close()
	_, err = fr.next()
	assert.ErrorIs(t, err, io.EOF)
}

func TestFeedReaderErrors(t *testing.T) {
	big := strings.Repeat("k", feedMaxBulk+1)
	tests := []struct {
		name, in string
		want     error // errFeedProtocol, or nil for another error
		contains string
	}{
		{name: "server error", in: "-ERR unknown command\r\n", contains: "server error: ERR unknown command"},
		{name: "simple string", in: "+OK\r\n", want: errFeedProtocol},
		{name: "empty array", in: "*0\r\n", want: errFeedProtocol},
		{name: "array too long", in: "*5\r\n", want: errFeedProtocol},
		{name: "bad count", in: "*x\r\n", want: errFeedProtocol},
		{name: "count past int64", in: "*1\r\n$99999999999999999999\r\n", want: errFeedProtocol},
		{name: "no CR", in: "*1\n", want: errFeedProtocol},
		{name: "nested array", in: "*1\r\n*1\r\n", want: errFeedProtocol},
		{name: "negative bulk", in: "*1\r\n$-1\r\n", want: errFeedProtocol},
		{name: "bulk over the bound", in: "*1\r\n$" + itoa(len(big)) + "\r\n" + big + "\r\n", want: errFeedProtocol},
		{name: "bulk without CRLF", in: "*1\r\n$3\r\nsetXY", want: errFeedProtocol},
		{name: "truncated bulk", in: "*1\r\n$10\r\nabc", want: io.ErrUnexpectedEOF},
		{name: "truncated header", in: "*2\r\n$3\r\nabc\r\n$1", want: io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readFrames(t, strings.NewReader(tt.in))
			assert.Empty(t, got)
			require.Error(t, err)
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
			}
			if tt.contains != "" {
				assert.Contains(t, err.Error(), tt.contains)
			}
		})
	}
}

func TestWriteCommand(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, writeCommand(&b, "SUBSCRIBE", "m"))
	assert.Equal(t, "*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nm\r\n", b.String())
}

// FuzzFeedReader: any input gives frames or an error, never a panic, and a
// stream of valid frames reads back as written whatever the read sizes.
func FuzzFeedReader(f *testing.F) {
	f.Add([]byte(frame(-1, "pmessage", "p", "__keyspace@0__:k", "set")), uint8(3))
	f.Add([]byte(frame(1, "subscribe", "m")+"-ERR x\r\n"), uint8(1))
	f.Add([]byte("*3\r\n$7\r\nmessage\r\n:12\r\n$-5\r\n"), uint8(7))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		r := io.Reader(bytes.NewReader(in))
		if chunk%2 == 1 {
			r = iotest.OneByteReader(r)
		}
		fr := newFeedReader(r)
		for range 1000 {
			f, err := fr.next()
			if err != nil {
				break
			}
			if f.kind == framePMessage || f.kind == frameMessage {
				require.True(t, bytes.Contains(in, f.channel))
			}
		}
		requireBufferedAgrees(t, in, int(chunk)+1)
	})
}

// parseAll reads every frame of in, delivered at most chunk bytes per read,
// with the one-pass parser of buffered frames on or off; it returns the
// frames and the error that ended them.
func parseAll(in []byte, chunk int, slow bool) ([]gotFrame, string) {
	fr := newFeedReader(&chunkReader{data: in, n: chunk}) // reader_test.go
	next := fr.next
	if slow {
		next = fr.nextGeneral
	}
	var got []gotFrame
	for range 10_000 {
		f, err := next()
		if err != nil {
			return got, err.Error()
		}
		got = append(got, gotFrame{f.kind, string(f.channel), string(f.payload)})
	}
	return got, ""
}

// requireBufferedAgrees checks that next reads in alike with nextBuffered on
// and off: the same frames, then the same error.
func requireBufferedAgrees(t *testing.T, in []byte, chunk int) {
	t.Helper()
	fast, fastErr := parseAll(in, chunk, false)
	slow, slowErr := parseAll(in, chunk, true)
	require.Equal(t, slow, fast, "frames, chunk %d, input %q", chunk, truncate(in, 200))
	require.Equal(t, slowErr, fastErr, "error, chunk %d, input %q", chunk, truncate(in, 200))
}

// TestFeedReaderBufferedAgrees: streams of valid frames of every kind, and
// the same streams with bytes changed, cut or inserted at random (seeded),
// read in chunks of several sizes: the one-pass parser of buffered frames
// reads exactly what the line-at-a-time parser reads, and fails where it
// fails, with the same error.
func TestFeedReaderBufferedAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var valid strings.Builder
	for i := range 200 {
		key := "__keyspace@0__:" + strings.Repeat("k", i%23) + itoa(i)
		switch i % 5 {
		case 0:
			valid.WriteString(frame(-1, "pmessage", keyspacePattern, key, "set"))
		case 1:
			valid.WriteString(frame(-1, "message", "marker", itoa(i)))
		case 2:
			valid.WriteString(frame(i%3, "subscribe", "marker"))
		case 3:
			valid.WriteString(frame(1, "psubscribe", keyspacePattern))
		default:
			valid.WriteString(frame(-1, "pmessage", keyspacePattern, key, strings.Repeat("x", i%13)))
		}
	}
	base := []byte(valid.String())
	for _, chunk := range []int{1, 7, 64, 4096, len(base)} {
		requireBufferedAgrees(t, base, chunk)
	}
	alphabet := []byte("*$:+-\r\n0123456789abc")
	for trial := range 3000 {
		in := bytes.Clone(base[:rng.IntN(len(base))+1])
		for range rng.IntN(4) + 1 {
			at := rng.IntN(len(in))
			switch rng.IntN(3) {
			case 0:
				in[at] = alphabet[rng.IntN(len(alphabet))]
			case 1:
				in = slices.Insert(in, at, alphabet[rng.IntN(len(alphabet))])
			default:
				in = slices.Delete(in, at, min(len(in), at+rng.IntN(3)+1))
			}
			if len(in) == 0 {
				in = []byte{'*'}
			}
		}
		requireBufferedAgrees(t, in, []int{1, 5, 64, 4096}[trial%4])
	}
}

func TestFeedReaderRoundTrip(t *testing.T) {
	var want []gotFrame
	var b strings.Builder
	for i := range 500 {
		key := "__keyspace@0__:" + strings.Repeat("x", i%97) + itoa(i)
		b.WriteString(frame(-1, "pmessage", "__keyspace@0__:*", key, "set"))
		want = append(want, gotFrame{framePMessage, key, "set"})
	}
	got, err := readFrames(t, iotest.HalfReader(strings.NewReader(b.String())))
	assert.True(t, errors.Is(err, io.EOF))
	assert.Equal(t, want, got)
}

// TestDeadlineReaderLingers: after a read that brings a little data into a
// large buffer (a trickling feed), the next read first waits feedLinger; after
// a read that fills at least half the buffer (a feed behind), or one that
// brought nothing, it reads at once.
func TestDeadlineReaderLingers(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	var waits []time.Duration
	r := &deadlineReader{c: client, d: time.Minute, sleep: func(d time.Duration) { waits = append(waits, d) }}
	send := func(n int) {
		go func() { _, _ = server.Write(bytes.Repeat([]byte{'x'}, n)) }()
	}
	buf := make([]byte, 100)
	for _, tc := range []struct {
		name  string
		send  int
		waits int // waits recorded before this read returned, in all
	}{
		{"first read, nothing before it", 10, 0},
		{"after a short read", 80, 1}, // waited, then read 80 of 100
		{"after a long read", 10, 1},  // no wait
		{"after another short read", 10, 2},
	} {
		send(tc.send)
		n, err := r.Read(buf)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.send, n, tc.name)
		assert.Len(t, waits, tc.waits, tc.name)
	}
	for _, d := range waits {
		assert.Equal(t, feedLinger, d)
	}
	server.Close()
	n, err := r.Read(buf) // waits once more (the last read was short), then EOF
	assert.Zero(t, n)
	assert.ErrorIs(t, err, io.EOF)
	assert.Len(t, waits, 3)
	assert.False(t, r.trickling, "a read that brought nothing must not make the next wait")
}

// BenchmarkFeedReader parses the frames a busy caching tier's feed receives:
// keyspace notifications of SETs (pmessage, 4 elements), read from a buffer
// through a reader that hands out 4 KB at a time, as a socket under load does.
// One op is one frame.
func BenchmarkFeedReader(b *testing.B) {
	var in strings.Builder
	const frames = 4096
	for i := range frames {
		in.WriteString(frame(-1, "pmessage", keyspacePattern, "__keyspace@0__:key:"+fmt.Sprintf("%012d", i), "set"))
	}
	data := []byte(in.String())
	b.SetBytes(int64(len(data) / frames))
	b.ReportAllocs()
	src := &chunkReader{n: 4096} // reader_test.go
	fr := newFeedReader(src)
	n := 0
	for b.Loop() {
		if n%frames == 0 {
			src.data = data
		}
		f, err := fr.next()
		if err != nil || f.kind != framePMessage || len(f.channel) == 0 {
			b.Fatalf("frame %d: %v %v", n, f.kind, err)
		}
		n++
	}
}
