//go:build linux

package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	addr, shards, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		os.Exit(2)
	}
	l, err := newLoop(addr, shards)
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(l.run())
}

// parseFlags parses args, printing usage and errors to errOut. An argument
// that is not a flag is refused: flag parsing stops there, so "evfloor
// -addr 127.0.0.1:7500 127.0.0.1:6379 -redis 127.0.0.1:6380" forwarded to
// the default shard alone.
func parseFlags(args []string, errOut io.Writer) (addr string, shards []string, err error) {
	fs := flag.NewFlagSet("evfloor", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.StringVar(&addr, "addr", "127.0.0.1:7398", "listen address (loopback)")
	redis := fs.String("redis", "127.0.0.1:6379", "Redis shards, comma-separated")
	if err := fs.Parse(args); err != nil {
		return "", nil, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q: settings are flags (-addr host:port, -redis a,b)", fs.Arg(0))
		fmt.Fprintln(errOut, "evfloor:", err)
		return "", nil, err
	}
	// Bad values are usage errors too (exit 2), refused before the loop
	// starts: an address listen cannot take, an empty shard ("a,,b").
	shards = strings.Split(*redis, ",")
	err = checkAddr(addr)
	for i, a := range shards {
		if err == nil && a == "" {
			err = fmt.Errorf("-redis %q: shard %d has no address", *redis, i)
		}
	}
	if err != nil {
		fmt.Fprintln(errOut, "evfloor:", err)
		return "", nil, err
	}
	return addr, shards, nil
}

// checkAddr refuses a listen address listen cannot take: it binds an IPv4
// address and a numeric port.
func checkAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err == nil && net.ParseIP(host).To4() == nil {
		err = fmt.Errorf("%q is not an IPv4 address", host)
	}
	if err != nil {
		return fmt.Errorf("-addr %q: %w", addr, err)
	}
	return nil
}

// loop is the whole proxy: one epoll set, its listener, clients and shards.
type loop struct {
	ep, lfd int
	clients map[int]*client
	shards  []*shard
	byFD    map[int]*shard
	dirty   []*client // clients with replies to write after this pass
	free    []*slot   // written slots, for reuse
	buf     []byte    // read buffer
	// paused is set while the listener is out of the epoll set, since
	// pausedAt: accept failed for want of a descriptor (see accept).
	paused   bool
	pausedAt time.Time
	// accept4 is syscall.Accept4; tests replace it.
	accept4 func(fd, flags int) (int, syscall.Sockaddr, error)
}

// client is one client connection: its unparsed input, and its replies in
// the order of its commands (a reply is ready once its slot is filled).
type client struct {
	fd     int
	in     []byte
	out    []byte
	pend   []*slot
	dirty  bool
	closed bool
}

// slot is one command's reply, filled when it is known.
type slot struct {
	c     *client
	ready bool
	data  []byte
}

// shard is one Redis connection: what this pass sends it, and what it waits
// for, in the order sent.
type shard struct {
	fd      int
	in, out []byte
	waiting []wait
	getKeys []string
	getAt   map[string]int // key -> index in getKeys
	getFor  [][]*slot      // per key of getKeys, the slots it answers
}

// wait is a command sent to a shard: an MGET (one list of slots per key) or a
// SET (one slot).
type wait struct {
	mget bool
	keys [][]*slot
	one  *slot
}

func newLoop(addr string, shardAddrs []string) (*loop, error) {
	runtime.LockOSThread()
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	l := &loop{ep: ep, clients: map[int]*client{}, byFD: map[int]*shard{}, buf: make([]byte, 64<<10),
		accept4: syscall.Accept4}
	if l.lfd, err = listen(addr); err != nil {
		return nil, err
	}
	if err := l.watch(l.lfd); err != nil {
		return nil, err
	}
	for _, a := range shardAddrs {
		fd, err := dial(a)
		if err != nil {
			return nil, err
		}
		s := &shard{fd: fd, getAt: map[string]int{}}
		l.shards = append(l.shards, s)
		l.byFD[fd] = s
		if err := l.watch(fd); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (l *loop) watch(fd int) error {
	return syscall.EpollCtl(l.ep, syscall.EPOLL_CTL_ADD, fd, &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)})
}

// acceptPause is how long the listener stays out of the epoll set after
// accept failed for want of a descriptor, unless a client closes first.
const acceptPause = 100 * time.Millisecond

// run serves until an error: pass after pass. While the listener is paused,
// a pass waits at most until acceptPause has passed, and the listener is
// then watched again.
func (l *loop) run() error {
	events := make([]syscall.EpollEvent, 256)
	for {
		timeout := -1
		if l.paused {
			left := acceptPause - time.Since(l.pausedAt)
			if left <= 0 {
				l.resume()
				continue
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		if _, err := l.pass(events, timeout); err != nil {
			return err
		}
	}
}

// pass waits up to timeout ms (-1: no bound) for events, reads what is
// ready, sends each shard what this pass gathered and writes the replies
// that are complete. It returns the number of events.
func (l *loop) pass(events []syscall.EpollEvent, timeout int) (int, error) {
	n, err := syscall.EpollWait(l.ep, events, timeout)
	if err == syscall.EINTR {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	for _, ev := range events[:n] {
		fd := int(ev.Fd)
		switch {
		case fd == l.lfd:
			l.accept()
		case l.byFD[fd] != nil:
			if err := l.readShard(l.byFD[fd]); err != nil {
				return 0, err
			}
		default:
			if c := l.clients[fd]; c != nil {
				l.readClient(c)
			}
		}
	}
	for _, s := range l.shards {
		if err := l.flushShard(s); err != nil {
			return 0, err
		}
	}
	for _, c := range l.dirty {
		l.writeClient(c)
	}
	l.dirty = l.dirty[:0]
	return n, nil
}

// accept accepts the pending connections. When it fails for want of a
// descriptor (EMFILE, ENFILE) or of memory, the connection stays pending and
// the level-triggered listener readable: every epoll wait would return at
// once and the loop spin at 100% CPU. The listener then leaves the epoll
// set until a client closes or acceptPause has passed (see run).
func (l *loop) accept() {
	for {
		fd, _, err := l.accept4(l.lfd, syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
		if err != nil {
			switch err {
			case syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM:
				l.pause()
			}
			return // EAGAIN: no more
		}
		_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
		if l.watch(fd) != nil {
			_ = syscall.Close(fd)
			continue
		}
		l.clients[fd] = &client{fd: fd}
	}
}

func (l *loop) readClient(c *client) {
	n, err := syscall.Read(c.fd, l.buf)
	if n <= 0 {
		if err == syscall.EAGAIN {
			return
		}
		l.closeClient(c)
		return
	}
	c.in = append(c.in, l.buf[:n]...)
	rest := c.in
	for len(rest) > 0 {
		args, used, ok := parseCommand(rest)
		if !ok {
			break
		}
		rest = rest[used:]
		l.command(c, args)
	}
	c.in = append(c.in[:0], rest...)
	l.mark(c)
}

// command queues one client command's reply slot, and the shard work that
// fills it.
func (l *loop) command(c *client, args [][]byte) {
	sl := l.newSlot(c)
	c.pend = append(c.pend, sl)
	switch name := args[0]; {
	case bytes.EqualFold(name, []byte("GET")) && len(args) == 2:
		s := l.shards[shardOf(args[1], len(l.shards))]
		i, ok := s.getAt[string(args[1])]
		if !ok {
			key := string(args[1])
			i = len(s.getKeys)
			s.getAt[key] = i
			s.getKeys = append(s.getKeys, key)
			s.getFor = append(s.getFor, nil)
		}
		s.getFor[i] = append(s.getFor[i], sl)
	case bytes.EqualFold(name, []byte("SET")) && len(args) == 3:
		s := l.shards[shardOf(args[1], len(l.shards))]
		if len(s.getKeys) > 0 {
			if _, read := s.getAt[string(args[1])]; read {
				// A GET of this key came first: its MGET goes out before
				// the SET, or it would read the SET's value.
				appendMGET(s)
			}
		}
		s.out = appendCommand(s.out, []byte("SET"), args[1], args[2])
		s.waiting = append(s.waiting, wait{one: sl})
	case bytes.EqualFold(name, []byte("PING")):
		sl.ready, sl.data = true, append(sl.data, "+PONG\r\n"...)
	default:
		sl.ready, sl.data = true, append(sl.data, "+OK\r\n"...)
	}
}

// newSlot returns an empty reply slot for c, reused from a written one when
// there is one: a floor should not pay an allocation per command.
func (l *loop) newSlot(c *client) *slot {
	if n := len(l.free); n > 0 {
		sl := l.free[n-1]
		l.free = l.free[:n-1]
		sl.c = c
		return sl
	}
	return &slot{c: c}
}

// flushShard sends the shard this pass's GETs as one MGET, after the SETs
// already appended, in one write.
func (l *loop) flushShard(s *shard) error {
	if len(s.getKeys) > 0 {
		appendMGET(s)
	}
	for len(s.out) > 0 {
		n, err := syscall.Write(s.fd, s.out)
		if err == syscall.EAGAIN {
			continue // a floor: spin until the shard takes it
		}
		if err != nil {
			return fmt.Errorf("shard write: %w", err)
		}
		s.out = s.out[n:]
	}
	s.out = s.out[:0]
	return nil
}

// appendMGET appends the GETs gathered for s as one MGET to what s is sent,
// and starts a new gathering.
func appendMGET(s *shard) {
	s.out = append(s.out, '*')
	s.out = strconv.AppendInt(s.out, int64(len(s.getKeys)+1), 10)
	s.out = append(s.out, "\r\n$4\r\nMGET\r\n"...)
	for _, k := range s.getKeys {
		s.out = appendBulk(s.out, []byte(k))
	}
	s.waiting = append(s.waiting, wait{mget: true, keys: s.getFor})
	s.getKeys, s.getFor = nil, nil
	clear(s.getAt)
}

// readShard reads the shard's replies and fills the slots they answer.
func (l *loop) readShard(s *shard) error {
	n, err := syscall.Read(s.fd, l.buf)
	if n <= 0 {
		if err == syscall.EAGAIN {
			return nil
		}
		return fmt.Errorf("shard read: %v", err)
	}
	s.in = append(s.in, l.buf[:n]...)
	rest := s.in
	for len(rest) > 0 && len(s.waiting) > 0 {
		w := s.waiting[0]
		if !w.mget {
			used, ok := replyLen(rest)
			if !ok {
				break
			}
			l.fill(w.one, rest[:used])
			rest = rest[used:]
		} else {
			elems, used, ok := arrayElems(rest, len(w.keys))
			if !ok {
				break
			}
			for i, sls := range w.keys {
				for _, sl := range sls {
					l.fill(sl, elems[i])
				}
			}
			rest = rest[used:]
		}
		s.waiting = s.waiting[1:]
	}
	s.in = append(s.in[:0], rest...)
	return nil
}

// fill stores a reply in its slot and queues its client for writing.
func (l *loop) fill(sl *slot, reply []byte) {
	sl.ready = true
	sl.data = append(sl.data[:0], reply...)
	l.mark(sl.c)
}

// mark queues c for writing after this pass.
func (l *loop) mark(c *client) {
	if !c.dirty {
		c.dirty = true
		l.dirty = append(l.dirty, c)
	}
}

// writeClient writes c's replies that are ready, in order, in one write.
func (l *loop) writeClient(c *client) {
	c.dirty = false
	if c.closed {
		return
	}
	i := 0
	for ; i < len(c.pend) && c.pend[i].ready; i++ {
		sl := c.pend[i]
		c.out = append(c.out, sl.data...)
		*sl = slot{data: sl.data[:0]} // written: nothing refers to it any more
		l.free = append(l.free, sl)
		c.pend[i] = nil
	}
	c.pend = c.pend[i:]
	for len(c.out) > 0 {
		n, err := syscall.Write(c.fd, c.out)
		if err == syscall.EAGAIN {
			continue // a floor: spin until the client takes it
		}
		if err != nil {
			l.closeClient(c)
			return
		}
		c.out = c.out[n:]
	}
	c.out = c.out[:0]
}

func (l *loop) closeClient(c *client) {
	c.closed = true
	delete(l.clients, c.fd)
	_ = syscall.Close(c.fd)
	if l.paused { // a descriptor is free again
		l.resume()
	}
}

// pause takes the listener out of the epoll set.
func (l *loop) pause() {
	if !l.paused && syscall.EpollCtl(l.ep, syscall.EPOLL_CTL_DEL, l.lfd, nil) == nil {
		l.paused, l.pausedAt = true, time.Now()
	}
}

// resume puts the listener back in the epoll set; on failure it stays
// paused, and run tries again after another acceptPause.
func (l *loop) resume() {
	if !l.paused {
		return
	}
	if l.watch(l.lfd) == nil {
		l.paused = false
	} else {
		l.pausedAt = time.Now()
	}
}

// shardOf routes a key by its FNV-1a hash.
func shardOf(key []byte, n int) int {
	h := uint32(2166136261)
	for _, b := range key {
		h = (h ^ uint32(b)) * 16777619
	}
	return int(h % uint32(n))
}

func listen(addr string) (int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return -1, err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return -1, err
	}
	ip := net.ParseIP(host).To4()
	if ip == nil {
		return -1, fmt.Errorf("evfloor: %q is not an IPv4 address", host)
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	sa := &syscall.SockaddrInet4{Port: p}
	copy(sa.Addr[:], ip)
	if err := syscall.Bind(fd, sa); err != nil {
		return -1, err
	}
	return fd, syscall.Listen(fd, 1024)
}

// dial connects to a shard (blocking), then makes the socket non-blocking.
func dial(addr string) (int, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return -1, err
	}
	f, err := c.(*net.TCPConn).File() // a blocking duplicate of the socket
	_ = c.Close()
	if err != nil {
		return -1, err
	}
	fd, err := syscall.Dup(int(f.Fd()))
	_ = f.Close()
	if err != nil {
		return -1, err
	}
	_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	return fd, syscall.SetNonblock(fd, true)
}
