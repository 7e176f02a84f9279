package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tierkit/tierkit/batcher"
	"github.com/tierkit/tierkit/control"
	"github.com/tierkit/tierkit/examples/internal/loophost"
	"github.com/tierkit/tierkit/internal/jsonesc"
)

// Config is the gateway's configuration: one JSON file (-config) plus flags.
// Every zero field means the documented default; with no file the gateway
// serves one open tenant, "default", on an embedded memkv backend.
type Config struct {
	Addr     string `json:"addr"`      // RESP listen address; default 127.0.0.1:6380
	HTTPAddr string `json:"http_addr"` // /control and /debug/pprof; default 127.0.0.1:6381, "-" disables
	// ControlHosts lists the Host names /control, /metrics and /debug/pprof
	// answer to (control.Config's AllowedHosts: others get 403, a guard
	// against DNS rebinding). Default:
	// localhost, 127.0.0.1, ::1 and the listener's own IP (127.0.0.2, say,
	// for http_addr 127.0.0.2:6381) when the HTTP listener binds a loopback
	// address (judged by the address bound, so "LOCALHOST:6381" counts), any
	// Host otherwise; ["*"] answers any Host on loopback too ("*" goes
	// alone).
	ControlHosts []string `json:"control_hosts"`
	TLSCert      string   `json:"tls_cert"` // PEM certificate file: serve RESP over TLS (with TLSKey)
	TLSKey       string   `json:"tls_key"`  // PEM private key file

	Tenants []TenantConfig `json:"tenants"` // empty: one open tenant "default"

	Backend BackendConfig `json:"backend"`

	// Batching and coalescing.
	Linger            Duration `json:"linger"`             // batch window (an upper bound with the natural policy); default 200us
	BatchPolicy       string   `json:"batch_policy"`       // "natural" (default): send at once when the group has no batch in flight; "linger": wait out the window
	MaxBatch          int      `json:"max_batch"`          // items (a command's ops for one shard) per backend call; default 128
	MaxInFlight       int      `json:"max_in_flight"`      // batches in the backend at once (a shard at most max_in_flight/shares: one per shard, one more per shard with replicas unless the caching tier is on); default 1024
	NoCoalesce        bool     `json:"no_coalesce"`        // turn read coalescing off
	LinearizableReads bool     `json:"linearizable_reads"` // a GET joins a coalesced fetch only until it is sent to its shard (less coalescing; no read older than a write another client already saw; with replicas, GETs read the primary)
	HotLinger         Duration `json:"hot_linger"`         // the longest the fetch of a key that many GETs read at once waits for its expected readers; default 1ms
	NoHotLinger       bool     `json:"no_hot_linger"`      // turn the hot-key linger off
	CacheCapacity     int      `json:"cache_capacity"`     // caching tier entries per shard (memkv or redis); 0: off
	CacheStaleness    Duration `json:"cache_staleness"`    // bounded staleness of cache hits; default 1s
	RequestTimeout    Duration `json:"request_timeout"`    // a data command's backend call, other commands whole; default 5s

	// Procs sets the process's GOMAXPROCS when the gateway runs as a program
	// (main; a Gateway embedded in another process leaves it alone): 0 keeps
	// the Go runtime's default, the CPUs the process may use. On a host
	// whose few cores the gateway shares with busy clients or backends,
	// fewer Ps than cores cost less: on a 2-core host shared with
	// redis-benchmark and two redis-servers, 1 P served 1.02-1.38x the
	// pipeline-1 requests per second of 2 Ps (HISTORY.md, "Thirty-second
	// session").
	Procs int `json:"procs"`

	// Admission: aimd (CPU-driven limit, memory guard) feeding shed.
	TargetCPU     float64  `json:"target_cpu"`     // aimd target load; default 0.9
	MinLimit      int      `json:"min_limit"`      // aimd Min; default 64 (max_limit if lower)
	MaxLimit      int      `json:"max_limit"`      // aimd Max; default 4096 (min_limit if higher)
	MaxQueue      int      `json:"max_queue"`      // shed per bucket; default 1024
	QueueDeadline Duration `json:"queue_deadline"` // shed; default 100ms

	Limits Limits `json:"limits"`

	// Request traces (OpenTelemetry), off by default.
	OTel       string  `json:"otel"`        // "off" (default) or "stdout": a span per data command, written as JSON
	OTelSample float64 `json:"otel_sample"` // share of commands traced, 0 < r <= 1; default (0 too) 1: otel off traces nothing

	// spanExporter, if set (tests), receives the spans instead of stdout.
	spanExporter sdktrace.SpanExporter
}

// TenantConfig is one tenant (use case). AUTH username password selects it.
type TenantConfig struct {
	Name        string   `json:"name"`
	Password    string   `json:"password"`     // empty: AUTH with any password (or none) works
	Commands    []string `json:"commands"`     // allowed data commands and WATCH; empty: all (connection, INFO, CONFIG, COMMAND, MULTI/EXEC: always; README); a name the gateway does not have is refused
	KeyPrefixes []string `json:"key_prefixes"` // allowed key prefixes (none empty); empty: all keys
	Priority    int      `json:"priority"`     // 0 (low) or 1 (high); default 0
	// CommandPriorities overrides Priority for the data commands and WATCH
	// it names (upper-cased at load, as Commands): {"KVSCAN": 0, "GET": 1}.
	CommandPriorities map[string]int `json:"command_priorities"`
	Weight            int            `json:"weight"`      // shed share; default 1
	QuotaRate         float64        `json:"quota_rate"`  // backend calls per second; 0: unlimited
	QuotaBurst        int            `json:"quota_burst"` // default max(1, QuotaRate)
}

// BackendConfig selects the store.
type BackendConfig struct {
	Kind   string   `json:"kind"`   // "memkv" (default) or "redis"
	Shards int      `json:"shards"` // memkv: number of shards; default 4
	Redis  []string `json:"redis"`  // redis: one address per shard (its primary)
	// Replicas lists, per shard, replica addresses: batches of reads spread
	// over them round robin; writes go to the primary. Reads from a replica may
	// lag the writes acknowledged by the primary, the connection's own too
	// (no read-your-writes), and without bound while its link to the primary
	// is down, which no metric shows, unless it runs with
	// replica-serve-stale-data no (README). Roles changed outside the
	// gateway are not followed: a replica promoted with REPLICAOF NO ONE is
	// still read, frozen at its promotion (README).
	Replicas [][]string `json:"replicas"`
	Pool     int        `json:"pool"` // redis: connections per shard; default 8
	// Client is the Redis client of the data path: "rueidis" (default;
	// auto-pipelined: concurrent batches share a connection and a write) or
	// "go-redis" (a pooled connection per batch). Transactions and the
	// caching tier's markers use go-redis either way (with rueidis, a second
	// pool of at most Pool connections, opened only when used); the tier's
	// subscription is one more connection per shard (feedconn.go).
	Client string `json:"client"`
	// Username and Password log the gateway in to every shard and replica,
	// on each of its connections (both data-path clients, transactions,
	// the caching tier's feed and markers): AUTH username password with a
	// username (an ACL user), AUTH password without (the default user,
	// requirepass). PasswordEnv names an environment variable that holds
	// the password instead, so that the file need not: one of password and
	// password_env at most. The password is never logged or shown.
	Username    string `json:"username"`
	Password    string `json:"password"`
	PasswordEnv string `json:"password_env"`
	// DialTimeout bounds each new connection to a shard or replica: its TCP
	// connect and, with rueidis, its setup too (AUTH, HELLO, CLIENT
	// SETNAME), which rueidis runs within its dial timeout. Default 500ms:
	// a shard that is down fails its keys that soon. A host so loaded that
	// a loopback connect and setup take longer needs more.
	DialTimeout Duration `json:"dial_timeout"`
}

// Limits harden the front end.
type Limits struct {
	MaxConns        int      `json:"max_conns"`         // default 10000
	MaxArgs         int      `json:"max_args"`          // per command; default 1024
	MaxRequestBytes int      `json:"max_request_bytes"` // one command; default 4 MiB
	MaxPipeline     int      `json:"max_pipeline"`      // commands run at once per connection; default 128
	MaxTxCommands   int      `json:"max_tx_commands"`   // queued between MULTI and EXEC; default 1024
	IdleTimeout     Duration `json:"idle_timeout"`      // close a silent connection; default 5m
	AuthTimeout     Duration `json:"auth_timeout"`      // close a connection not authenticated by then, where tenants must AUTH; default 10s
	WriteTimeout    Duration `json:"write_timeout"`     // default 10s
}

// Duration is a time.Duration that reads "250ms" from JSON.
type Duration time.Duration

// UnmarshalJSON parses a duration string; null leaves d as it is, as for
// other types. A bad value is a *json.UnmarshalTypeError, which the decoder
// completes with the field's name.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return &json.UnmarshalTypeError{Value: fmt.Sprintf("%s (want a string such as \"250ms\")", b), Type: reflect.TypeFor[Duration]()}
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return &json.UnmarshalTypeError{Value: fmt.Sprintf("%s (%v)", b, err), Type: reflect.TypeFor[Duration]()}
	}
	*d = Duration(v)
	return nil
}

func loadConfig(path string) (Config, error) {
	var c Config
	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if c, err = decodeConfig(data); err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// decodeConfig reads a configuration file's JSON; a field it does not know,
// or one given twice, is an error (a misspelt knob would otherwise be
// ignored, and so would the first of two). The file holds one object: an
// empty file was refused as "EOF", and null (a template's rendering of an
// empty document) decoded as {} and served the open tenant "default".
func decodeConfig(data []byte) (Config, error) {
	var c Config
	switch rest := bytes.TrimLeft(data, " \t\r\n"); { // JSON's white space
	case len(rest) == 0:
		return Config{}, errors.New("the configuration is empty: want a JSON object ({} for every default)")
	case rest[0] != '{':
		return Config{}, errors.New("the configuration is not a JSON object ({...})")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Config{}, errors.New("data after the configuration object")
	}
	// encoding/json matches names to fields without regard to case and
	// keeps the last: a file with a second "tenants" list, empty, served one
	// open tenant.
	if name := jsonesc.RepeatedMember(data); name != "" {
		return Config{}, fmt.Errorf("field %q appears twice in one object", name)
	}
	// encoding/json decodes a byte that is not UTF-8, and an escape of half
	// a surrogate pair, as U+FFFD: a password or key prefix written in
	// another encoding would be one no client can send.
	if !utf8.Valid(data) {
		return Config{}, errors.New("the configuration is not valid UTF-8")
	}
	if at := jsonesc.LoneSurrogate(data); at >= 0 {
		return Config{}, fmt.Errorf("a string escapes half a surrogate pair at offset %d", at)
	}
	return c, nil
}

// flushPolicy is the batcher policy that BatchPolicy names.
func (c Config) flushPolicy() batcher.FlushPolicy {
	if c.BatchPolicy == "linger" {
		return batcher.FlushOnLinger
	}
	return batcher.FlushNatural
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// withDefaults fills zero fields and checks the rest: section by section
// (tenants, TLS, backend, batching, admission, limits, traces), then the
// ranges (checkRanges). It returns the first error found.
func (c Config) withDefaults() (Config, error) {
	c.Addr = or(c.Addr, "127.0.0.1:6380")
	c.HTTPAddr = or(c.HTTPAddr, "127.0.0.1:6381")
	if err := c.checkListen(); err != nil {
		return c, err
	}
	if err := c.defaultTenants(); err != nil {
		return c, err
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return c, errors.New("gateway: tls_cert and tls_key go together")
	}
	if len(c.ControlHosts) > 1 && slices.Contains(c.ControlHosts, "*") {
		// Beside other names, "*" would be taken for a host of that name.
		return c, errors.New(`gateway: control_hosts: "*" (any Host) goes alone`)
	}
	// The names control.New takes (no port, no wildcard): checked here, not
	// first at start, so that main refuses a bad one as a bad setting.
	if _, err := control.New(control.Config{AllowedHosts: c.controlHosts(nil)}); err != nil {
		return c, fmt.Errorf("gateway: control_hosts: %w", err)
	}
	if err := c.Backend.fillDefaults(); err != nil {
		return c, err
	}
	if err := c.defaultBatching(); err != nil {
		return c, err
	}
	c.defaultAdmission()
	c.Limits.fillDefaults()
	if err := c.defaultOTel(); err != nil {
		return c, err
	}
	return c, c.checkRanges()
}

// defaultTenants fills in the one open tenant when none is configured, checks
// each tenant and upper-cases its command names. The names are changed in
// place: Commands shares its backing array with the caller's Config.
func (c *Config) defaultTenants() error {
	if len(c.Tenants) == 0 {
		c.Tenants = []TenantConfig{{Name: "default"}}
	}
	seen := map[string]bool{}
	for i, t := range c.Tenants {
		if t.Name == "" || seen[t.Name] {
			return fmt.Errorf("gateway: tenant %d: empty or duplicate name %q", i, t.Name)
		}
		if err := t.check(i); err != nil {
			return err
		}
		seen[t.Name] = true
		if err := upperCommands(t.Name, t.Commands); err != nil {
			return err
		}
		prios, err := upperPriorities(t.Name, t.CommandPriorities)
		if err != nil {
			return err
		}
		c.Tenants[i].CommandPriorities = prios
	}
	return nil
}

// check rejects a tenant (the i-th) whose name has a character that INFO or
// the knob names cannot carry, whose priority, weight or quota is out of
// range, or whose key_prefixes hold an empty one.
func (t TenantConfig) check(i int) error {
	// The name is read back in INFO (tenant_<name>:k=v,...) and in the
	// quota knobs' names (quota.<name>.rate): a colon or a comma breaks
	// the INFO line for parsers, and spaces, quotes and control
	// characters are refused in knob names.
	if strings.ContainsFunc(t.Name, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune(`:,"`, r) }) {
		return fmt.Errorf("gateway: tenant %d: name %q has a space, a control character, a quote, a colon or a comma", i, t.Name)
	}
	if t.Priority < 0 || t.Priority > 1 || t.Weight < 0 || t.QuotaRate < 0 || t.QuotaBurst < 0 {
		return fmt.Errorf("gateway: tenant %q: priority must be 0 or 1, weight and quota >= 0", t.Name)
	}
	// Every key starts with the empty prefix: listed, even beside other
	// prefixes, it lifted the confinement (a template's placeholder that
	// rendered empty gave the tenant every key). Leaving key_prefixes out
	// is how every key is allowed.
	if slices.Contains(t.KeyPrefixes, "") {
		return fmt.Errorf("gateway: tenant %q: key_prefixes: an empty prefix allows every key (leave key_prefixes out for that)", t.Name)
	}
	return nil
}

// upperCommands upper-cases tenant's command names in place and rejects a
// name the gateway does not know.
func upperCommands(tenant string, cmds []string) error {
	for j, cmd := range cmds {
		// A name the gateway does not know (a misspelling) would
		// refuse the command meant, with NOPERM at run time.
		spec, err := knownCommand(tenant, "commands", cmd)
		if err != nil {
			return err
		}
		cmds[j] = spec.name
	}
	return nil
}

// knownCommand returns the spec of the command named cmd (in any case), or
// an error naming tenant's field if the gateway does not know it. The case
// is folded as a client's command name is (asciiUpper): strings.ToUpper took
// "ſet" for SET, a name the gateway refuses from clients.
func knownCommand(tenant, field, cmd string) (*cmdSpec, error) {
	spec, ok := commands[asciiUpper([]byte(cmd))]
	if !ok {
		return nil, fmt.Errorf("gateway: tenant %q: %s: unknown command %q", tenant, field, cmd)
	}
	return spec, nil
}

// defaultBatching fills the batching, coalescing and caching settings and
// checks the batch policy.
func (c *Config) defaultBatching() error {
	c.Linger = or(c.Linger, Duration(200*time.Microsecond))
	c.HotLinger = or(c.HotLinger, Duration(defaultHotLinger))
	// Checked before no_hot_linger zeroes it: a negative or oversized
	// hot_linger beside no_hot_linger passed, where every other bad
	// duration is refused (cache_staleness too with the tier off).
	if c.HotLinger < 0 || c.HotLinger > Duration(maxHotLinger) {
		return fmt.Errorf("gateway: hot_linger %v: want 0 (the default, %v) to %v", time.Duration(c.HotLinger), defaultHotLinger, maxHotLinger)
	}
	if c.NoHotLinger {
		c.HotLinger = 0
	}
	c.BatchPolicy = or(c.BatchPolicy, "natural")
	if c.BatchPolicy != "natural" && c.BatchPolicy != "linger" {
		return fmt.Errorf("gateway: batch_policy %q: want \"natural\" or \"linger\"", c.BatchPolicy)
	}
	c.MaxBatch = or(c.MaxBatch, 128)
	c.CacheStaleness = or(c.CacheStaleness, Duration(time.Second))
	c.MaxInFlight = or(c.MaxInFlight, 1024)
	c.RequestTimeout = or(c.RequestTimeout, Duration(5*time.Second))
	return nil
}

// defaultAdmission fills the admission settings (aimd and shed). A limit
// bound not given follows the other one past its default (max_limit 32
// alone: min_limit 32), not to contradict a setting the file has.
func (c *Config) defaultAdmission() {
	c.TargetCPU = or(c.TargetCPU, 0.9)
	switch {
	case c.MinLimit == 0 && c.MaxLimit > 0:
		c.MinLimit = min(64, c.MaxLimit)
	case c.MaxLimit == 0 && c.MinLimit > 0:
		c.MaxLimit = max(4096, min(c.MinLimit, maxKnobCount))
	}
	c.MinLimit = or(c.MinLimit, 64)
	c.MaxLimit = or(c.MaxLimit, 4096)
	c.MaxQueue = or(c.MaxQueue, 1024)
	c.QueueDeadline = or(c.QueueDeadline, Duration(100*time.Millisecond))
}

// fillDefaults fills the front end's zero limits.
func (l *Limits) fillDefaults() {
	l.MaxConns = or(l.MaxConns, 10000)
	l.MaxArgs = or(l.MaxArgs, 1024)
	l.MaxRequestBytes = or(l.MaxRequestBytes, 4<<20)
	l.MaxPipeline = or(l.MaxPipeline, 128)
	l.MaxTxCommands = or(l.MaxTxCommands, 1024)
	l.IdleTimeout = or(l.IdleTimeout, Duration(5*time.Minute))
	l.AuthTimeout = or(l.AuthTimeout, Duration(10*time.Second))
	l.WriteTimeout = or(l.WriteTimeout, Duration(10*time.Second))
}

// defaultOTel fills the trace settings and checks the exporter's name.
func (c *Config) defaultOTel() error {
	c.OTel = or(c.OTel, "off")
	if c.OTel != "off" && c.OTel != "stdout" {
		return fmt.Errorf("gateway: otel %q: want \"off\" or \"stdout\"", c.OTel)
	}
	// A share other than the default samples traces that are not made:
	// "-otel-sample 0.01" without -otel stdout was accepted and ignored.
	if c.OTel == "off" && c.spanExporter == nil && c.OTelSample != 0 && c.OTelSample != 1 {
		return fmt.Errorf("gateway: otel_sample %v (-otel-sample) with otel off: it samples the traces of otel stdout (-otel stdout)", c.OTelSample)
	}
	c.OTelSample = or(c.OTelSample, 1)
	return nil
}

// maxMemkvShards bounds the embedded backend's shards: each is a store of its
// own in this process.
const maxMemkvShards = 1024

// maxPool bounds a Redis shard's connections per client (pool): go-redis
// sizes its pool's structures by it when the client is made, and panics on
// one above 2^31-1. It is above what a Redis server accepts by default
// (maxclients 10000).
const maxPool = 1 << 16

// checkRanges rejects out-of-range values, other than those the components
// below check themselves (shed, aimd, batcher and cache refuse their own bad
// settings): unchecked, a negative limit refused every connection or command,
// a negative timeout closed every connection at once, no memkv shard left
// nothing to route to. It runs after the defaults, so a zero here is a
// default already and only out-of-range values remain (hot_linger is checked
// with its defaults, before no_hot_linger zeroes it).
func (c Config) checkRanges() error {
	if !(c.OTelSample > 0 && c.OTelSample <= 1) { // NaN too (-otel-sample parses it)
		return fmt.Errorf("gateway: otel_sample %v: want 0 < r <= 1", c.OTelSample)
	}
	if c.Procs < 0 || c.Procs > maxProcs {
		return fmt.Errorf("gateway: procs %d: want 0 (the Go runtime's default) to %d", c.Procs, maxProcs)
	}
	if c.CacheCapacity < 0 {
		return fmt.Errorf("gateway: cache_capacity %d: want >= 0 (0: no caching tier)", c.CacheCapacity)
	}
	if c.CacheStaleness < 0 { // unused with the tier off, but refused as any negative duration
		return fmt.Errorf("gateway: cache_staleness %v: want >= 0 (0: the default, 1s)", time.Duration(c.CacheStaleness))
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"min_limit", c.MinLimit}, {"max_limit", c.MaxLimit}} {
		// Before the two are compared: a negative max_limit alone was
		// refused as "min_limit 64 > max_limit -1", for a default it never set.
		if v.n < 1 {
			return fmt.Errorf("gateway: %s %d: want at least 1 (0: the default)", v.name, v.n)
		}
	}
	// Past the aimd.max knob's bound before the two are compared: max_limit's
	// default, following min_limit, stops there, and "min_limit 2000000 >
	// max_limit 1048576" named a setting the file never had.
	if c.MinLimit > maxKnobCount {
		return fmt.Errorf("gateway: min_limit %d: want 1 to %d", c.MinLimit, maxKnobCount)
	}
	if c.MinLimit > c.MaxLimit {
		return fmt.Errorf("gateway: min_limit %d > max_limit %d", c.MinLimit, c.MaxLimit)
	}
	if c.Backend.Kind == "memkv" && (c.Backend.Shards < 1 || c.Backend.Shards > maxMemkvShards) {
		return fmt.Errorf("gateway: backend shards %d: want 1 to %d", c.Backend.Shards, maxMemkvShards)
	}
	if c.Backend.Pool < 1 || c.Backend.Pool > maxPool {
		return fmt.Errorf("gateway: backend pool %d: want 1 to %d (0: the default, 8)", c.Backend.Pool, maxPool)
	}
	if !(c.TargetCPU > 0 && c.TargetCPU <= 1) {
		return fmt.Errorf("gateway: target_cpu %v: want a share of the CPU, 0 < t <= 1 (0: the default, 0.9)", c.TargetCPU)
	}
	if err := c.checkKnobRanges(); err != nil {
		return err
	}
	l := c.Limits
	for _, v := range []struct {
		name string
		n    int
	}{{"max_conns", l.MaxConns}, {"max_args", l.MaxArgs}, {"max_request_bytes", l.MaxRequestBytes},
		{"max_pipeline", l.MaxPipeline}, {"max_tx_commands", l.MaxTxCommands}} {
		if v.n < 1 {
			return fmt.Errorf("gateway: limits %s %d: want at least 1 (0: the default)", v.name, v.n)
		}
	}
	if l.IdleTimeout < 0 || l.WriteTimeout < 0 || l.AuthTimeout < 0 {
		return fmt.Errorf("gateway: limits idle_timeout %v, write_timeout %v, auth_timeout %v: want >= 0 (0: the default)",
			time.Duration(l.IdleTimeout), time.Duration(l.WriteTimeout), time.Duration(l.AuthTimeout))
	}
	return nil
}

// checkKnobRanges rejects settings that are also control knobs (knobs.go)
// outside the knob's bounds: the knob is registered with the setting's value
// and refuses one outside them. Negative values are refused here too (after
// the defaults, a zero is a default already): left to the components, which
// refuse them as well, they failed start, after main's check, and the
// process exited 1 rather than with a bad setting's status 2.
func (c Config) checkKnobRanges() error {
	type bound struct {
		name     string
		v        Duration
		min, max time.Duration
	}
	durs := []bound{
		{"linger", c.Linger, minLinger, maxLinger},
		{"request_timeout", c.RequestTimeout, minRequestTimeout, maxRequestTimeout},
		{"queue_deadline", c.QueueDeadline, minQueueDeadline, maxQueueDeadline},
	}
	if c.CacheCapacity > 0 { // the tier's knobs exist only with the tier
		durs = append(durs, bound{"cache_staleness", c.CacheStaleness, minStaleness, maxStaleness})
	}
	for _, d := range durs {
		if v := time.Duration(d.v); v < d.min || v > d.max {
			return fmt.Errorf("gateway: %s %v: want %v to %v", d.name, v, d.min, d.max)
		}
	}
	for _, n := range []struct {
		name        string
		v, min, max int
	}{{"max_batch", c.MaxBatch, 1, maxKnobBatch}, {"max_in_flight", c.MaxInFlight, 1, maxKnobCount},
		{"max_limit", c.MaxLimit, 1, maxKnobCount}, {"max_queue", c.MaxQueue, 1, maxKnobCount},
		{"cache_capacity", c.CacheCapacity, 0, maxKnobCapacity}} {
		if n.v < n.min || n.v > n.max {
			return fmt.Errorf("gateway: %s %d: want %d to %d", n.name, n.v, n.min, n.max)
		}
	}
	if c.TargetCPU < minTargetCPU {
		return fmt.Errorf("gateway: target_cpu %v: want %v to 1", c.TargetCPU, minTargetCPU)
	}
	for _, t := range c.Tenants {
		if t.QuotaRate > maxKnobQuota || float64(t.QuotaBurst) > maxKnobQuota {
			return fmt.Errorf("gateway: tenant %q: quota_rate %v, quota_burst %d: want at most %v", t.Name, t.QuotaRate, t.QuotaBurst, maxKnobQuota)
		}
	}
	return nil
}

// controlHosts returns the Host names /control answers to (nil: any): the
// configured list; with none, the loopback names and ip itself (127.0.0.2,
// say: the gateway's own URL) when the HTTP listener is on a loopback
// address ip (judged by the address it bound; nil: no listener), so that a
// web page whose domain an attacker resolves to 127.0.0.1 cannot change
// knobs from an operator's browser (DNS rebinding; an IP literal is no such
// risk, the page comes with its domain as Host). The control plane command
// and the cluster example's plane have the same default (package loophost).
func (c Config) controlHosts(ip net.IP) []string {
	return loophost.Allowed(ip, c.ControlHosts)
}
