package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"
)

// Server is the RESP front end: it accepts connections, parses commands with
// respReader (reader.go), runs each pipeline through the Gateway (commands
// that touch different keys concurrently, so they can share batches), and
// writes the replies in order through redcon's Writer.
type Server struct {
	g   *Gateway
	cfg Config
	log *slog.Logger

	mu       sync.Mutex // protects conns, closing, refusals, refusalsCut and read deadlines set by connections
	conns    map[*session]struct{}
	closing  bool
	listener net.Listener
	closed   atomic.Bool // closing, readable without mu

	wg     sync.WaitGroup // connection goroutines
	nextID atomic.Uint64

	accepted, refused, active, tooLarge, protoErrors, panics atomic.Int64
	tlsFailures                                              atomic.Int64 // failed TLS handshakes (tlsRefused)
	attackLogged                                             atomic.Int64 // httpRefused's last log, unix ns
	tlsLogged                                                atomic.Int64 // tlsRefused's last log, unix ns

	// The accept loop's log of refused connections: one line per
	// refusalLogEvery at most, with the count since the last line.
	refusalLogged   time.Time
	refusedUnlogged int64
	refusing        chan struct{} // refusals being written, at most maxRefusing

	// The refusals being written, which Shutdown cuts short and waits for
	// (refuse.go). mu protects refusals and refusalsCut; refusers counts
	// the goroutines, and no refusal is added once refusalsCut is set.
	refusals    map[net.Conn]struct{}
	refusalsCut bool
	refusers    sync.WaitGroup
}

// session is one client connection and its state.
type session struct {
	g      *Gateway
	server *Server
	conn   net.Conn
	id     uint64
	remote string
	tenant *tenant // nil: not authenticated (NOAUTH)
	proto  int
	name   string
	quit   bool
	// refused: quit after a protocol error answered in a pipeline (a
	// command past the unauthenticated limits behind a RESET that logged
	// the connection out, unauthRefused): the connection lingers as after
	// one the reader refused.
	refused bool
	txs     txState
	pipe    pipeScratch // reused by every pipeline of the session
	hot     hotReader   // its last GETs of coalesced keys (hotkeys.go); used only when solo
	// solo: the chunk being executed is one command, run on the session's
	// goroutine (a pipeline's commands can run on workers at once). Set by
	// execute before any of the chunk's commands runs.
	solo bool
}

func (s *session) srv() *Server { return s.server }

func (s *session) user() string {
	if s.tenant == nil {
		return ""
	}
	return s.tenant.cfg.Name
}

// auth switches the session to tenant user if pass matches; nil on success.
// pass is hashed whether or not user names a tenant: skipped for an unknown
// one, a long password's WRONGPASS came back a millisecond sooner, which
// told a client which usernames are tenants.
func (s *session) auth(user, pass string) any {
	t, ok := s.g.tenants[user]
	want := ""
	if ok {
		want = t.cfg.Password
	}
	if match := passwordMatches(want, pass); !ok || (want != "" && !match) {
		s.g.n.authFailures.Add(1)
		return respErr("WRONGPASS invalid username-password pair or user is disabled.")
	}
	s.tenant = t
	return nil
}

// passwordMatches reports whether got is want, in time that depends on
// neither (it compares their SHA-256 digests with subtle): a client timing
// its AUTH replies learns nothing about how much of a guess was right, nor
// the password's length.
func passwordMatches(want, got string) bool {
	w, g := sha256.Sum256([]byte(want)), sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(w[:], g[:]) == 1
}

// newServer returns the front end of g; it logs to g's logger.
func newServer(g *Gateway, cfg Config) *Server {
	s := &Server{g: g, cfg: cfg, log: g.log, conns: map[*session]struct{}{},
		refusing: make(chan struct{}, maxRefusing), refusals: map[net.Conn]struct{}{}}
	if g.metrics != nil {
		g.metrics.srv.Store(s)
	}
	return s
}

// Serve accepts connections on ln until Shutdown. It returns nil after
// Shutdown, or the accept error.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		// Shutdown came first (start runs Serve on a goroutine): nobody
		// else will close ln.
		s.mu.Unlock()
		_ = ln.Close()
		return nil
	}
	s.listener = ln
	s.mu.Unlock()
	var backoff time.Duration // after a passing accept error, as net/http's
	// The warning for passing accept errors: one line per refusalLogEvery
	// at most, with the failures since the last line. Out of descriptors
	// with clients coming and going, accepts fail and pass by turns, and
	// the backoff, back to zero at each pass, logged every failure.
	var acceptLogged time.Time
	acceptUnlogged := 0
	for {
		c, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing || errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			// Out of file descriptors (EMFILE, ENFILE) or a connection
			// aborted before it was accepted: the listener still works,
			// and connections that close free descriptors.
			if te, ok := err.(interface{ Temporary() bool }); ok && te.Temporary() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				if acceptUnlogged++; time.Since(acceptLogged) >= refusalLogEvery {
					s.log.Warn("accept failed; retrying", "err", err, "in", backoff, "failures", acceptUnlogged)
					acceptLogged, acceptUnlogged = time.Now(), 0
				}
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		ss := &session{g: s.g, server: s, conn: c, id: s.nextID.Add(1), remote: c.RemoteAddr().String(), tenant: s.g.open, proto: 2}
		s.mu.Lock()
		if s.closing || len(s.conns) >= s.cfg.Limits.MaxConns {
			closing := s.closing
			s.mu.Unlock()
			s.refuse(c, closing)
			continue
		}
		s.conns[ss] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		s.accepted.Add(1)
		s.active.Add(1)
		go s.serveConn(ss)
	}
}

// Shutdown stops accepting, lets every connection finish the commands it has
// read (their replies are written), closes the connections (each first
// reads what its client sent since, for at most lingerTime: drainAtShutdown), then closes the
// Gateway, which flushes pending batches: no acknowledged write is lost.
// If ctx ends first, the remaining connections are closed at once.
// Refusals (connections over max_conns) whose error is still being written
// when the connections are done are cut short and closed: Shutdown leaves
// no refusal goroutine behind.
// Shutdown may be called again, and concurrently: each call waits for the
// connections as the first does, and for the Gateway's one drain
// ([Gateway.Close] closes it once), every call returning its result.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	s.closed.Store(true)
	if s.listener != nil {
		_ = s.listener.Close()
	}
	for ss := range s.conns {
		_ = ss.conn.SetReadDeadline(time.Now()) // wake idle readers
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		s.mu.Lock()
		for ss := range s.conns {
			_ = closeTransport(ss.conn)
		}
		s.mu.Unlock()
		<-done
	}
	s.cutRefusals()
	return errors.Join(err, s.g.Close())
}

// closeTransport closes c at once: under TLS, the connection beneath.
// tls.Conn's Close first writes a close_notify, which waits for a write in
// progress inside Read (the answer to a client's KeyUpdate, to a client that
// does not read) to end, up to that write's deadline.
func closeTransport(c net.Conn) error {
	if tc, ok := c.(*tls.Conn); ok {
		return tc.NetConn().Close()
	}
	return c.Close()
}

// errTooLarge ends a connection whose command would take more than
// MaxRequestBytes.
var errTooLarge = errors.New("ERR Protocol error: request too large")

func (s *Server) serveConn(ss *session) {
	defer s.endConn(ss)
	lim := s.cfg.Limits
	rd := newRESPReader(ss.conn, lim.MaxRequestBytes)
	dl := newConnDeadlines(ss.conn, time.Duration(lim.IdleTimeout), time.Duration(lim.WriteTimeout))
	wr := &replyWriter{Writer: redcon.NewWriter(progressWriter{dl})}
	flush := func() error { return dl.flush(wr) }
	wr.flush = flush
	for {
		// Every tenant must AUTH: auth_timeout runs from the accept, and
		// again from a RESET, which ends the authentication (without, a
		// connection that authenticated once lived on unauthenticated
		// after RESET, as long as it sent something).
		switch unauth := ss.tenant == nil; {
		case unauth && dl.authBy.IsZero():
			dl.unauthenticated(time.Now().Add(time.Duration(lim.AuthTimeout)))
		case !unauth && !dl.authBy.IsZero():
			dl.authenticated()
		}
		if !dl.beforeRead(s, rd) {
			s.drainAtShutdown(ss)
			return
		}
		rd.unauth = ss.tenant == nil
		cmds, err := rd.ReadCommands()
		if err != nil {
			if s.closed.Load() && isTimeout(err) {
				// Shutdown ended the read: one waiting for the next
				// command, or for the rest of one it cut short. Its
				// client may send more, which, left unread (or reaching
				// a closed socket), made the close a reset that dropped
				// the replies still queued to go out. Before, only a
				// read holding the start of a command drained: an idle
				// connection was closed at once.
				s.drainAtShutdown(ss)
				return
			}
			s.readFailed(ss, wr.Writer, err)
			return
		}
		attack := false
		if j := httpLine(cmds); j >= 0 {
			cmds, attack = cmds[:j], true
		}
		answered := s.answer(ss, wr, cmds, flush)
		if attack && !ss.quit {
			// Counted once the commands before it ran, and only if it
			// ends the connection: a QUIT before it had ended it, and
			// a command refused past the unauthenticated limits is
			// counted by its refusal.
			s.httpRefused(ss)
		}
		if !answered {
			return
		}
		if err := flush(); err != nil || ss.quit {
			if err == nil && ss.refused {
				s.linger(ss) // the error reaches the client, not a reset
			}
			return
		}
		if attack {
			s.linger(ss) // the replies before it reach the client, not a reset
			return
		}
	}
}

// isTimeout reports whether err is a read's deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// endConn ends serveConn: a bug on one connection's path closes that
// connection, not the gateway (as net/http does); it is logged with its
// stack.
func (s *Server) endConn(ss *session) {
	if r := recover(); r != nil {
		s.panics.Add(1)
		s.log.Error("panic serving a connection; closing it", "remote", ss.remote, "panic", r, "stack", string(debug.Stack()))
	}
	_ = ss.conn.Close()
	s.mu.Lock()
	delete(s.conns, ss)
	s.mu.Unlock()
	s.active.Add(-1)
	s.wg.Done()
}

// answer runs the commands of one read in chunks of max_pipeline and writes
// their replies, flushing between chunks; false: a flush failed, the
// connection ends. The last chunk's replies are left for the caller's flush.
func (s *Server) answer(ss *session, wr *replyWriter, cmds []redcon.Command, flush func() error) bool {
	for len(cmds) > 0 && !ss.quit {
		chunk := cmds[:min(len(cmds), s.cfg.Limits.MaxPipeline)]
		cmds = cmds[len(chunk):]
		replies := ss.execute(chunk)
		for i, r := range replies {
			if r == overloadedReply || r == memoryReply {
				s.g.n.overloaded.Add(1) // once per command refused
			}
			writeReply(wr, ss.pipe.protos[i], r)
		}
		// Written: kept until the next chunk, the replies (a large
		// value, an ECHO's whole read) stayed in memory for as long
		// as the connection then stayed idle.
		clear(replies)
		// A chunk's replies go out before the next chunk runs: a read
		// may hold hundreds of thousands of commands, whose replies
		// would all wait in the writer (unbounded memory), and a
		// client that does not read is cut by write_timeout at once.
		// A pipeline of one chunk (the common case) flushes once.
		if len(cmds) > 0 && !ss.quit && flush() != nil {
			return false
		}
	}
	return true
}

// noAuth are the commands a connection without a tenant may run, those
// Redis runs before AUTH: the others answer NOAUTH, as Redis answers them
// (INFO, for one, names every tenant: the users AUTH takes).
var noAuth = map[string]bool{"AUTH": true, "HELLO": true, "QUIT": true, "RESET": true}

// lookup finds the command and checks arity, argument count, authentication
// and the tenant's ACL. It returns an error reply instead of a spec when the
// command must not run.
func (ss *session) lookup(args [][]byte) (*cmdSpec, string, any) {
	if len(args) == 0 {
		return nil, "", respErr("ERR empty command")
	}
	spec, ok := lookupSpec(args[0])
	if !ok {
		return nil, strings.ToUpper(string(args[0])), errUnknown(args)
	}
	name := spec.name
	if !arityOK(spec, len(args)) {
		return nil, name, errArity(name)
	}
	if bad := checkSub(spec, args); bad != nil {
		return nil, name, bad
	}
	if len(args) > ss.g.cfg.Limits.MaxArgs {
		return nil, name, respErr(fmt.Sprintf("ERR too many arguments (limit %d)", ss.g.cfg.Limits.MaxArgs))
	}
	if ss.tenant == nil && !noAuth[name] {
		return nil, name, respErr("NOAUTH Authentication required.")
	}
	// WATCH's keys too, before it runs, as Redis checks its ACL: checked
	// by cmdWatch, a denied WATCH counted in INFO's
	// total_commands_processed, where Redis counts no command its ACL
	// refuses.
	if (spec.kind == kindRead || spec.kind == kindWrite) && !ss.tenant.allowsArgs(spec, args) ||
		name == "WATCH" && !ss.tenant.allowsWatch(args) {
		ss.tenant.denied.Add(1)
		ss.g.n.denied.Add(1)
		return nil, name, respErr(errNoPerm.Error())
	}
	return spec, name, nil
}

// cachedGet reports whether args is a GET whose key the caching tier holds
// now, so that running it takes no backend call (a later eviction only makes
// it load on this goroutine). The probe costs a second routing and index
// lookup for the key (the GET then looks it up again, and counts the hit);
// a few tens of nanoseconds against the worker hand-off it saves.
func (ss *session) cachedGet(spec *cmdSpec, args [][]byte) bool {
	ct := ss.g.cache
	if ct == nil || spec.name != "GET" || len(args) != 2 || ss.txs.tx != nil {
		return false
	}
	key := string(args[1])
	return ct.contains(ss.g.shard(key), key)
}

// underWatch is call's part for a data command while a WATCH is open: a
// write notes the connection's own write; a read the transaction holds runs
// in it (true, with its reply); any other read gets a context that reads
// the shard as it is.
func (ss *session) underWatch(ctx context.Context, spec *cmdSpec, name string, args [][]byte) (context.Context, any, bool) {
	if spec.kind == kindWrite {
		ss.ownWrite() // a run after WATCH holds one command at a time
		return ctx, nil, false
	}
	if !ss.txs.wrote && name != "KVSCAN" && ss.onTxShard(spec.keys(args)) {
		if r, ok := ss.callTx(ctx, spec, args); ok {
			return ctx, r, true
		}
	}
	// A read after WATCH that runs outside the transaction (after the
	// connection's own write, or past what the transaction holds) reads the
	// shard as it is, as Redis's does: a hit of the caching tier, or a fetch
	// started before the WATCH, could be older than it, and EXEC, which
	// checks the watched keys from their WATCH on, then committed a value
	// computed from it over another client's write.
	return withShardReads(ctx), nil, false
}

// call runs one command: data commands go through admission first, once
// their arguments pass their check (cmdSpec.check).
func (ss *session) call(spec *cmdSpec, name string, args [][]byte) any {
	g := ss.g
	g.n.commands.Add(1)
	ctx := context.Background()
	if spec.kind != kindRead && spec.kind != kindWrite {
		ctx, cancel := context.WithTimeout(ctx, time.Duration(g.timeout.Load())) // the command whole
		defer cancel()
		return spec.fn(ctx, ss, args)
	}
	t := ss.tenant
	t.requests.Add(1)
	ca, bad := spec.checkArgs(g, args)
	if bad != "" {
		return ss.malformed(spec, args, bad)
	}
	if ss.txs.tx != nil {
		var r any
		var ok bool
		if ctx, r, ok = ss.underWatch(ctx, spec, name, args); ok {
			return r
		}
	}
	start := time.Now()
	ctx, tr := g.tracer.start(ctx, t, spec, args)
	done, release, err := g.admitAt(ctx, t, spec, spec.cost(args), start)
	if err != nil {
		g.n.errors.Add(1)
		g.metrics.observe(t, spec, false, time.Since(start))
		tr.end(admitOutcome(err), err.Error())
		return errReply(err)
	}
	// A panic of the command (a bug: serveConn closes the connection) gives
	// the admission back too: kept, each one shrank the capacity for good.
	// It ends the span too: left open, it was never exported. And it counts
	// as a request that failed: only connection_panics counted it.
	failed, returned := true, false
	defer func() {
		done(!failed)
		release()
		if !returned {
			g.n.errors.Add(1)
			g.metrics.observe(t, spec, false, time.Since(start))
			tr.end("error", "ERR panic")
		}
	}()
	if !spec.bounded {
		// A data command's timeout bounds its backend calls (KVSCAN's
		// scans), as the batcher's flush timeout bounds the others', not
		// its wait in shed's queue, which queue_deadline bounds: a scan
		// queued past request_timeout answered "ERR context deadline
		// exceeded" where a GET answered -OVERLOADED, and one admitted
		// late had what was left of it for its scans.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(g.timeout.Load()))
		defer cancel()
	}
	r := spec.exec(ctx, ss, args, ca)
	returned = true
	if spec.kind == kindWrite && ss.txs.tx != nil {
		ss.noteOwnWrite(spec, args, r)
	}
	e, failed := r.(respErr)
	if failed {
		g.n.errors.Add(1)
	}
	g.metrics.observe(t, spec, !failed, time.Since(start))
	switch {
	case r == overloadedReply: // the batcher's in-flight cap or a shard's share of it
		tr.end("overloaded", string(e))
	case failed:
		tr.end("error", string(e))
	default:
		tr.end("ok", "")
	}
	return r
}

// malformed answers a data command whose arguments failed its check, bad,
// without admitting it, and counts it as call counts a command that failed
// (a request, an error, and its span's outcome).
func (ss *session) malformed(spec *cmdSpec, args [][]byte, bad respErr) any {
	g, start := ss.g, time.Now()
	_, tr := g.tracer.start(context.Background(), ss.tenant, spec, args)
	g.n.errors.Add(1)
	g.metrics.observe(ss.tenant, spec, false, time.Since(start))
	tr.end("error", string(bad))
	return bad
}
