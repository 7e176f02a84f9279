package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/examples/internal/loophost"
	"github.com/tierkit/tierkit/internal/jsonesc"
	"github.com/tierkit/tierkit/rollout"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if code := exitCode(run(ctx, os.Args[1:], log, nil), log); code != 0 {
		os.Exit(code)
	}
}

// exitCode is the command's exit status for run's error, which it logs: 0
// for none and for -h (the flag package printed the usage), 2 for bad usage
// (a flag, argument or config file, or a setting the plane refuses), as the
// other example commands, and 1 for a plane that failed to listen or serve.
func exitCode(err error, log *slog.Logger) int {
	var u usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		log.Error("controlplane", "err", err)
		return 2
	default:
		log.Error("controlplane", "err", err)
		return 1
	}
}

// usageError marks an error of the command's settings: its flags and
// arguments, its config file, and the Config the plane refuses.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// fileConfig is the JSON config file.
type fileConfig struct {
	Listen   string                 `json:"listen"`
	Cadence  string                 `json:"cadence"`
	Regions  []controlplane.Region  `json:"regions"`
	Gateways []controlplane.Gateway `json:"gateways"`
	Direct   []string               `json:"direct"`
	Rollout  rollout.Config         `json:"rollout"`
	// AllowedHosts is controlplane.Config.AllowedHosts; loophost.Allowed
	// gives the default, as for the gateway's control_hosts and the cluster's plane.
	AllowedHosts []string `json:"allowed_hosts"`
}

// readTimeout bounds the read of a whole request (the API's bodies are
// small); a variable so that a test can shorten it.
var readTimeout = 10 * time.Second

// shutdownTimeout bounds the wait for requests in progress at a stop; a
// variable so that a test can shorten it.
var shutdownTimeout = 5 * time.Second

// run parses args, runs the plane and serves its handler until ctx ends. ready,
// if set, is called with the listening address.
func run(ctx context.Context, args []string, log *slog.Logger, ready func(addr string)) error {
	fc, err := parseArgs(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	cfg := controlplane.Config{Regions: fc.Regions, Gateways: fc.Gateways, Direct: fc.Direct, Rollout: fc.Rollout}
	if fc.Cadence != "" {
		if cfg.Cadence, err = time.ParseDuration(fc.Cadence); err != nil {
			return usageError{fmt.Errorf("cadence: %w", err)}
		}
		// Config's zero Cadence is its default: a cadence given as 0
		// would run at 1s, not at the cadence asked for.
		if cfg.Cadence == 0 {
			return usageError{fmt.Errorf("cadence %q: want > 0 (leave it out for the default 1s)", fc.Cadence)}
		}
	}
	// Listen first: whether the plane is on loopback is the address the
	// listener got, whatever name -listen gave it (the resolver ignores
	// case, and a host's own name may map to 127.0.1.1).
	ln, err := net.Listen("tcp", fc.Listen)
	if err != nil {
		return err
	}
	ip := ln.Addr().(*net.TCPAddr).IP
	loopback := ip.IsLoopback()
	cfg.AllowedHosts = loophost.Allowed(ip, fc.AllowedHosts)
	p, err := controlplane.New(cfg)
	if err != nil {
		// Every error of New is a setting it refuses.
		_ = ln.Close()
		return usageError{err}
	}
	if !loopback {
		log.Warn("the dashboard and API have no authentication and listen beyond loopback", "addr", ln.Addr().String())
	}
	srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: readTimeout,
		IdleTimeout: 2 * time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	rctx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	ran := make(chan error, 1)
	go func() { ran <- p.Run(rctx) }()
	log.Info("controlplane serving", "http", ln.Addr().String(), "regions", len(cfg.Regions), "gateways", len(cfg.Gateways))
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	// A request still in progress after the wait (a client stalled within
	// the read timeout) is cut: the stop was asked for, it is no failure.
	if serr := srv.Shutdown(sctx); serr != nil {
		if !errors.Is(serr, context.DeadlineExceeded) {
			err = errors.Join(err, serr)
		}
		_ = srv.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	stopRun()
	<-ran
	return err
}

func parseArgs(args []string) (fileConfig, error) {
	fs := flag.NewFlagSet("controlplane", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	var (
		file    = fs.String("config", "", "JSON config file (see the command's doc)")
		listen  = fs.String("listen", "", "address of the dashboard and API (default 127.0.0.1:7070)")
		cadence = fs.String("cadence", "", "poll + balance + failover period (default 1s)")
		direct  = fs.String("direct", "", "comma-separated backend shard addresses for direct mode")
		hosts   = fs.String("allowed-hosts", "", "comma-separated Host names the dashboard and API answer to, * for any "+
			"(default localhost,127.0.0.1,::1 and the listener's IP on a loopback -listen, any otherwise)")
	)
	var regions []controlplane.Region
	var gateways []controlplane.Gateway
	fs.Func("region", "a region, as name[:backup1,backup2...] (repeatable)", func(s string) error {
		name, backups, _ := strings.Cut(s, ":")
		r := controlplane.Region{Name: name}
		if backups != "" {
			r.Backups = strings.Split(backups, ",")
		}
		regions = append(regions, r)
		return nil
	})
	fs.Func("gateway", "a gateway, as id,region,resp-addr,http-addr,cores (repeatable)", func(s string) error {
		f := strings.Split(s, ",")
		if len(f) != 5 {
			return fmt.Errorf("gateway %q: want id,region,resp-addr,http-addr,cores", s)
		}
		cores, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			return fmt.Errorf("gateway %q: cores: %w", s, err)
		}
		gateways = append(gateways, controlplane.Gateway{ID: f[0], Region: f[1], RESP: f[2], HTTP: f[3], Cores: cores})
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return fileConfig{}, err
	}
	// Parsing stops at the first argument that is not a flag: refuse it
	// rather than ignore it and the flags after it ("controlplane plane.json"
	// would run without the file, "-region eu eu-1,eu,..." without the gateway).
	if fs.NArg() > 0 {
		return fileConfig{}, fmt.Errorf("unexpected argument %q: settings are flags (-config file.json, -region, -gateway, ...)", fs.Arg(0))
	}
	var fc fileConfig
	if *file != "" {
		var err error
		if fc, err = readConfigFile(*file); err != nil {
			return fc, err
		}
	}
	fc.Regions = append(fc.Regions, regions...)
	fc.Gateways = append(fc.Gateways, gateways...)
	if *listen != "" {
		fc.Listen = *listen
	}
	if fc.Listen == "" {
		fc.Listen = "127.0.0.1:7070"
	}
	if *cadence != "" {
		fc.Cadence = *cadence
	}
	if *direct != "" {
		fc.Direct = strings.Split(*direct, ",")
	}
	if *hosts != "" {
		fc.AllowedHosts = strings.Split(*hosts, ",")
	}
	return fc, nil
}

// readConfigFile reads the JSON config file: one object, no unknown field,
// nothing after it.
func readConfigFile(file string) (fileConfig, error) {
	var fc fileConfig
	data, err := os.ReadFile(file)
	if err != nil {
		return fc, err
	}
	// One object: the literal null would decode into the zero config
	// without an error and run the plane on the flags alone.
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' {
		return fc, fmt.Errorf("%s: want one JSON object", file)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return fc, fmt.Errorf("%s: %w", file, err)
	}
	// One object: anything after it would be ignored (not dec.More,
	// which reports false before a stray '}' or ']').
	if _, err := dec.Token(); err != io.EOF {
		return fc, fmt.Errorf("%s: data after the config object", file)
	}
	// encoding/json matches names to fields without regard to case and
	// keeps the last: a second "gateways" list dropped the first one's
	// gateways, and {"Kill": true, ..., "kill": false} ran with the kill
	// switch off. The API refuses such a body, and the gateway such a file.
	if name := jsonesc.RepeatedMember(data); name != "" {
		return fc, fmt.Errorf("%s: member %q appears twice in one object", file, name)
	}
	// encoding/json decodes a byte that is not UTF-8, and an escape of half
	// a surrogate pair, as U+FFFD: a gateway ID or region name the file
	// never held (the plane's UTF-8 checks see the decoded string).
	if !utf8.Valid(data) {
		return fc, fmt.Errorf("%s: not valid UTF-8", file)
	}
	if at := jsonesc.LoneSurrogate(data); at >= 0 {
		return fc, fmt.Errorf("%s: a string escapes half a surrogate pair at offset %d", file, at)
	}
	return fc, nil
}
