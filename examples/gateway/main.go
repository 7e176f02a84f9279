package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"

	"github.com/tierkit/tierkit/control"
)

func main() {
	configPath := flag.String("config", "", "JSON configuration file (optional)")
	verbose := flag.Bool("v", false, "debug logs")
	settingFlags(flag.CommandLine)
	flag.Parse()
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if flag.NArg() > 0 {
		// Every setting is a flag: a stray argument is a mistake ("gateway
		// prod.json" without -config; "-v false", where a bool flag takes
		// -v=false), which would otherwise serve with settings not asked for.
		log.Error("arguments", "err", fmt.Sprintf("unexpected argument %q: settings are flags (-config file.json; -v=false)", flag.Arg(0)))
		os.Exit(2)
	}
	otel.SetErrorHandler(&exportErrors{log: log})
	redis.SetLogger(redisClientLog{log: log})
	cfg, err := loadConfig(*configPath)
	if err != nil {
		log.Error("config", "err", err)
		os.Exit(2)
	}
	cfg = applyFlags(flag.CommandLine, cfg)
	// A setting refused (out of range, unknown, contradicting another) is a
	// usage error, as a file that does not parse is: status 2, not the 1 of
	// a gateway that failed while serving. start checks it again (run is
	// also called without main); the checks are idempotent.
	if _, err := cfg.withDefaults(); err != nil {
		log.Error("config", "err", err)
		os.Exit(2)
	}
	setProcs(cfg.Procs)

	// A reader of stdout (the spans of -otel stdout) or of stderr (the
	// logs) that goes away fails those writes, not the gateway: Go ends a
	// process that writes to a broken pipe on either unless SIGPIPE is
	// handled.
	signal.Ignore(syscall.SIGPIPE)
	ctx := shutdownOnSignal()
	if err := run(ctx, cfg, log, nil, shutdownGrace); err != nil {
		log.Error("gateway", "err", err)
		os.Exit(1)
	}
}

// signalled is the cause of the context shutdownOnSignal returns.
type signalled struct{ os.Signal }

func (s signalled) Error() string { return "signal: " + s.Signal.String() }

// shutdownOnSignal returns a context that ends, for run to drain, at the
// first SIGINT, SIGTERM or SIGHUP; its cause is a signalled.
//
// The gateway reloads no configuration (its knobs change through /control),
// so SIGHUP, the terminal that started it closing, shuts it down as SIGTERM
// does: its default action ended the process at once, and the writes still
// in a batch with it. A process started with SIGHUP ignored (nohup) keeps
// it ignored: signal.Notify would replace the SIG_IGN it inherited.
//
// The handlers of SIGINT and SIGTERM are removed before the drain starts,
// so a second one ends the process at once, by the signal's default
// action, as a second Ctrl-C is expected to. SIGHUP stays caught, and is
// then ignored: a hang-up comes twice (the shell passes its own on to its
// jobs, and the kernel sends one to the terminal's foreground group when
// the shell exits), and the second is no request to hurry.
func shutdownOnSignal() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	if !signal.Ignored(syscall.SIGHUP) {
		signal.Notify(sigs, syscall.SIGHUP)
	}
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		signal.Ignore(syscall.SIGHUP) // before Stop, which would restore its default
		signal.Stop(sigs)
		cancel(signalled{sig})
	}()
	return ctx
}

// settingFlags defines on fs the flags that set a configuration field.
func settingFlags(fs *flag.FlagSet) {
	fs.String("addr", "", "RESP listen address (default 127.0.0.1:6380)")
	fs.String("http", "", "HTTP address for /control, /metrics and /debug/pprof (default 127.0.0.1:6381; - disables)")
	fs.Int("shards", 0, "memkv shards (default 4)")
	fs.String("tls-cert", "", "PEM certificate: serve RESP over TLS (with -tls-key)")
	fs.String("tls-key", "", "PEM private key for -tls-cert")
	fs.String("redis", "", "comma-separated redis-server addresses, one per shard (default: embedded memkv)")
	fs.String("redis-client", "", "data-path Redis client: rueidis (default) or go-redis")
	fs.String("otel", "", "request traces: off (default) or stdout (a span per data command, as JSON)")
	fs.Float64("otel-sample", 0, "share of commands traced with -otel, 0 < r <= 1 (default 1; 0 is the default too: to trace nothing, -otel off)")
	fs.String("batch-policy", "", "natural (default: a batch goes at once when its group has none in flight) or linger (every batch waits out the linger)")
	fs.Int("procs", 0, "GOMAXPROCS for the process (default: the Go runtime's, the CPUs it may use); on a small host shared with busy clients or backends, fewer can serve more")
}

// applyFlags returns cfg with the settings of the flags given on the command
// line (fs, parsed): a flag given wins over the file, its zero value too
// (-procs 0 is the Go runtime's default, whatever the file says), and one
// not given leaves the file's value.
func applyFlags(fs *flag.FlagSet, cfg Config) Config {
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.(flag.Getter).Get()
		switch f.Name {
		case "addr":
			cfg.Addr = v.(string)
		case "http":
			cfg.HTTPAddr = v.(string)
		case "shards":
			cfg.Backend.Shards = v.(int)
		case "tls-cert":
			cfg.TLSCert = v.(string)
		case "tls-key":
			cfg.TLSKey = v.(string)
		case "redis":
			// The flag replaces the file's shards, and so their replicas
			// (the file's lists name replicas of its primaries); "" is
			// the embedded memkv, where the file's client and login have
			// no use. Otherwise the file's login serves the flag's shards,
			// and a memkv shard count the file had goes (it was kept, and
			// the start refused as "-shards" on the redis backend, a flag
			// not given; -shards, visited after -redis, still is).
			cfg.Backend.Kind, cfg.Backend.Redis, cfg.Backend.Replicas = "redis", strings.Split(v.(string), ","), nil
			if v.(string) == "" {
				cfg.Backend.Kind, cfg.Backend.Redis, cfg.Backend.Client = "memkv", nil, ""
				cfg.Backend.Username, cfg.Backend.Password, cfg.Backend.PasswordEnv = "", "", ""
			} else {
				cfg.Backend.Shards = 0
			}
		case "redis-client":
			cfg.Backend.Client = v.(string)
		case "otel":
			cfg.OTel = v.(string)
		case "otel-sample":
			cfg.OTelSample = v.(float64)
		case "batch-policy":
			cfg.BatchPolicy = v.(string)
		case "procs":
			cfg.Procs = v.(int)
		}
	})
	return cfg
}

// setProcs applies the procs setting to the process and returns the
// GOMAXPROCS in effect. 0 keeps the runtime's default, and a value out of
// range changes nothing (start refuses it with the reason).
func setProcs(n int) int {
	if n > 0 && n <= maxProcs {
		runtime.GOMAXPROCS(n)
	}
	return runtime.GOMAXPROCS(0)
}

// instance is a running gateway: RESP server, HTTP server, control registry.
type instance struct {
	cfg    Config
	gw     *Gateway
	srv    *Server
	reg    *control.Registry
	ln     net.Listener
	httpLn net.Listener
	http   *http.Server
	// httpStop ends the requests of the HTTP server at Shutdown: a CPU
	// profile or trace in progress (/debug/pprof/profile?seconds=30) would
	// otherwise hold Shutdown until its context ends.
	httpStop context.CancelFunc
	// httpDone is closed when the HTTP server's Serve has returned:
	// Shutdown waits for it. (http.Server's Shutdown does not when Serve's
	// goroutine had not begun yet: it closed the listener, after Shutdown,
	// once it did.)
	httpDone chan struct{}
	// httpBegun is closed when Serve's goroutine has begun: from then on
	// Serve returns as soon as Shutdown has closed its listener, so
	// Shutdown waits for it whatever its context (before, a context that
	// had ended during the RESP drain reported the HTTP server still
	// serving as often as not, a server that had stopped).
	httpBegun chan struct{}
	serveErr  chan error
	log       *slog.Logger

	shutdownOnce sync.Once
	shutdownErr  error
}

// start builds the gateway from cfg and starts serving; Addr() is then the
// RESP address (cfg.Addr may be 127.0.0.1:0 for a free port).
func start(cfg Config, log *slog.Logger) (*instance, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	backend, err := openBackend(cfg)
	if err != nil {
		return nil, err
	}
	gw, err := newGateway(cfg, backend, log)
	if err != nil {
		_ = backend.Close()
		return nil, err
	}
	in := &instance{cfg: cfg, gw: gw, srv: newServer(gw, cfg), serveErr: make(chan error, 1), log: log}
	if err := in.listen(); err != nil {
		_ = gw.Close()
		return nil, err
	}
	// /control's Host names follow the address the HTTP listener bound, not
	// http_addr's text: "LOCALHOST:6381", or a host name that resolves to
	// 127.0.1.1, binds loopback too.
	in.reg, err = control.New(control.Config{Rate: 10, Burst: 20, AllowedHosts: cfg.controlHosts(in.httpIP())})
	if err == nil {
		err = gw.registerKnobs(in.reg)
	} else {
		err = fmt.Errorf("gateway: control_hosts: %w", err)
	}
	if err != nil {
		in.closeListeners()
		_ = gw.Close()
		return nil, err
	}
	if in.httpLn != nil {
		in.serveHTTP()
	}
	go func() { in.serveErr <- in.srv.Serve(in.ln) }()
	attrs := []any{"resp", in.ln.Addr().String(), "http", httpAddrOf(in), "backend", cfg.Backend.Kind,
		"shards", backend.Shards(), "tenants", len(cfg.Tenants), "procs", runtime.GOMAXPROCS(0)}
	if cfg.Backend.Kind == "redis" {
		attrs = append(attrs, "client", cfg.Backend.Client)
	}
	log.Info("gateway serving", attrs...)
	return in, nil
}

// listen opens the RESP listener and, unless http_addr is "-", the HTTP one.
func (in *instance) listen() error {
	var err error
	if in.ln, err = listen(in.cfg); err != nil {
		return err
	}
	if in.cfg.HTTPAddr != "-" {
		if in.httpLn, err = net.Listen("tcp", in.cfg.HTTPAddr); err != nil {
			_ = in.ln.Close()
			return err
		}
	}
	return nil
}

// closeListeners closes what listen opened, for a start that fails after it.
func (in *instance) closeListeners() {
	_ = in.ln.Close()
	if in.httpLn != nil {
		_ = in.httpLn.Close()
	}
}

// httpIP returns the IP the HTTP listener bound (nil: none).
func (in *instance) httpIP() net.IP {
	if in.httpLn == nil {
		return nil
	}
	if ta, ok := in.httpLn.Addr().(*net.TCPAddr); ok {
		return ta.IP
	}
	return nil
}

// serveHTTP serves /control, /metrics and /debug/pprof on the HTTP listener.
func (in *instance) serveHTTP() {
	mux := http.NewServeMux()
	guard := control.Config{AllowedHosts: in.cfg.controlHosts(in.httpIP())}
	mux.Handle("/control/", http.StripPrefix("/control", in.gw.gateControl(guard, in.reg.Handler())))
	mux.Handle("/metrics", allowHosts(guard, in.gw.metrics.handler()))
	// Each handler net/http/pprof registers on the default mux: Index
	// serves the runtime's profiles alone, and answered 404 for the
	// cmdline its page links to and the symbol go tool pprof asks for.
	for path, h := range map[string]http.HandlerFunc{"/debug/pprof/": pprof.Index, "/debug/pprof/cmdline": pprof.Cmdline,
		"/debug/pprof/profile": pprof.Profile, "/debug/pprof/symbol": pprof.Symbol, "/debug/pprof/trace": pprof.Trace} {
		mux.Handle(path, allowHosts(guard, refuseCrossSite(h)))
	}
	base, stop := context.WithCancel(context.Background())
	in.httpStop = stop
	in.http = &http.Server{
		Handler:           cutOnStop(mux),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second, // the control API's bodies are small
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
		// What net/http reports (a failed accept it retries, a handler's
		// panic) goes to the gateway's log: without ErrorLog it went to the
		// standard logger, on stderr outside the structured log.
		ErrorLog: slog.NewLogLogger(in.gw.log.Handler(), slog.LevelWarn),
	}
	in.httpDone, in.httpBegun = make(chan struct{}), make(chan struct{})
	goServe(func() {
		close(in.httpBegun)
		defer close(in.httpDone)
		// Serve returns ErrServerClosed after Shutdown, and any other error
		// when its listener fails for good (it retries passing ones): the
		// RESP side keeps serving, so say that the HTTP side stopped.
		if err := in.http.Serve(in.httpLn); !errors.Is(err, http.ErrServerClosed) {
			in.log.Error("HTTP server stopped; /metrics, /control and /debug/pprof no longer answer",
				"http", in.httpLn.Addr().String(), "err", err)
		}
	})
}

// goServe runs the HTTP server's Serve on a goroutine; tests replace it to
// hold Serve back.
var goServe = func(f func()) { go f() }

// stopGrace is how long a response in progress when the HTTP server stops
// (httpStop) may take to be written: a cut profile is small.
const stopGrace = time.Second

// cutOnStop fails the writes of a response still in progress stopGrace after
// its request's context ends (httpStop at Shutdown, or the client gone): a
// client that stopped reading a trace held the handler, blocked in a write
// that the context does not end (runtime/trace's Stop waits for it), and
// Shutdown with it. (A WriteTimeout would not do: pprof extends it by the
// seconds the profile or trace asks for.)
func cutOnStop(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		stop := context.AfterFunc(r.Context(), func() { _ = rc.SetWriteDeadline(time.Now().Add(stopGrace)) })
		defer stop()
		h.ServeHTTP(w, r)
	})
}

// refuseCrossSite refuses with 403 a request that a browser marks as sent
// by a page of another site (Sec-Fetch-Site cross-site or same-site): any
// page can make a browser GET 127.0.0.1 with no preflight, and with a Host
// allowHosts accepts, so the Host guard kept it from reading a profile, not
// from starting a CPU profile or an execution trace of as many seconds as
// it asked. A URL typed in (none), the index's own links (same-origin) and
// tools that send no such header (go tool pprof, curl) are served.
func refuseCrossSite(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch site := r.Header.Get("Sec-Fetch-Site"); site {
		case "", "none", "same-origin":
			h.ServeHTTP(w, r)
		default:
			http.Error(w, fmt.Sprintf("a request from another site (Sec-Fetch-Site %q) is not served", site), http.StatusForbidden)
		}
	})
}

// allowHosts refuses with 403, as /control does, a request whose Host is not
// one /control answers to: a page of a domain an attacker resolves to
// 127.0.0.1 (DNS rebinding) read /metrics and /debug/pprof, on the same
// listener, from an operator's browser, and could hold the CPU profiler.
func allowHosts(guard control.Config, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !guard.AllowsHost(r.Host) {
			http.Error(w, fmt.Sprintf("Host %q is not allowed", r.Host), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func httpAddrOf(in *instance) string {
	if in.httpLn == nil {
		return "-"
	}
	return in.httpLn.Addr().String()
}

// Addr returns the RESP listen address.
func (in *instance) Addr() string { return in.ln.Addr().String() }

// Shutdown drains connections, flushes batches and stops the HTTP server.
// Later calls return the first call's result.
func (in *instance) Shutdown(ctx context.Context) error {
	in.shutdownOnce.Do(func() {
		err := in.srv.Shutdown(ctx)
		if in.http != nil {
			in.httpStop()
			err = errors.Join(err, in.http.Shutdown(ctx))
			if !in.awaitHTTPServe(ctx) {
				err = errors.Join(err, fmt.Errorf("the HTTP server still serving: %w", ctx.Err()))
			}
		}
		if serr := <-in.serveErr; serr != nil {
			err = errors.Join(err, serr)
		}
		in.shutdownErr = err
	})
	return in.shutdownErr
}

// awaitHTTPServe waits, once the HTTP server's Shutdown has closed its
// listener, for its Serve to return, and reports whether it did: a Serve
// that has begun returns at once then, and is waited for even if ctx has
// ended (the RESP drain may have taken all of it); one whose goroutine has
// not begun is waited for until ctx ends.
func (in *instance) awaitHTTPServe(ctx context.Context) bool {
	select {
	case <-in.httpBegun:
	default:
		select {
		case <-in.httpBegun:
		case <-ctx.Done():
			return false
		}
	}
	<-in.httpDone
	return true
}

// shutdownGrace bounds run's shutdown at a signal: the process exits within it.
const shutdownGrace = 10 * time.Second

// run serves until ctx ends, then shuts down gracefully and returns within
// grace. The connections have nine tenths of it to finish the commands they
// have read; those still open then are closed. A command still running at
// grace (a backend call that does not return, or a pipeline's chain of
// commands on one key, each of which may take request_timeout) is abandoned:
// run returns an error without waiting for it, and the process exits. Its
// client got no reply: its connection was closed.
// started, if non-nil, receives the instance once it serves.
func run(ctx context.Context, cfg Config, log *slog.Logger, started chan<- *instance, grace time.Duration) error {
	in, err := start(cfg, log)
	if err != nil {
		return err
	}
	if started != nil {
		started <- in
	}
	select {
	case <-ctx.Done():
	case err := <-in.serveErr:
		in.serveErr <- err // for Shutdown
	}
	var attrs []any
	var sig signalled
	if errors.As(context.Cause(ctx), &sig) {
		attrs = append(attrs, "signal", sig.Signal.String())
	}
	log.Info("shutting down: draining connections and flushing batches", attrs...)
	hard := time.NewTimer(grace)
	defer hard.Stop()
	sctx, cancel := context.WithTimeout(context.Background(), grace-grace/10)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- in.Shutdown(sctx) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("shutdown: %w", err)
		}
	case <-hard.C:
		return fmt.Errorf("shutdown: commands still running %v after it began; exiting without them", grace)
	}
	log.Info("stopped")
	return nil
}

// listen opens the RESP listener, over TLS when a certificate is configured.
func listen(cfg Config) (net.Listener, error) {
	if cfg.TLSCert == "" {
		return net.Listen("tcp", cfg.Addr)
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("gateway: tls: %w", err)
	}
	return tls.Listen("tcp", cfg.Addr, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
}

func openBackend(cfg Config) (Backend, error) {
	switch cfg.Backend.Kind {
	case "memkv":
		return newMemkvBackend(cfg.Backend.Shards)
	case "redis":
		return newRedisBackend(cfg.Backend.Redis, cfg.Backend.Replicas, cfg.Backend.Pool, cfg.Backend.Client,
			redisAuth{user: cfg.Backend.Username, password: cfg.Backend.Password,
				dialTimeout: time.Duration(cfg.Backend.DialTimeout)}), nil
	}
	return nil, fmt.Errorf("gateway: unknown backend kind %q (want \"memkv\" or \"redis\")", cfg.Backend.Kind)
}
