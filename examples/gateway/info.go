package main

import (
	"context"
	"fmt"
	"runtime"
	rtmetrics "runtime/metrics"
	"strings"
	"time"

	"github.com/tierkit/tierkit/shed"
)

var startTime = time.Now()

// cmdInfo answers INFO with the sections tools read (server, clients, stats,
// replication, keyspace: its header only, the gateway counts no keys) plus
// the gateway's own: admission, batching, coalescing, tenants, and the
// backend shards' health.
func cmdInfo(_ context.Context, s *session, a [][]byte) any {
	// As Redis 7: every section named, or all of them for none, "all",
	// "everything" or "default".
	all := len(a) == 1
	want := map[string]bool{}
	for _, w := range a[1:] {
		switch w := asciiLower(cString(w)); w { // a C string, as Redis reads it
		case "all", "everything", "default":
			all = true
		default:
			want[w] = true
		}
	}
	g := s.g
	var b strings.Builder
	section := func(name string, lines ...string) {
		if !all && !want[strings.ToLower(name)] {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\r\n") // a blank line between sections, none after the last, as Redis
		}
		fmt.Fprintf(&b, "# %s\r\n", name)
		for _, l := range lines {
			b.WriteString(l + "\r\n")
		}
	}
	section("Server", "redis_version:7.2.0", "redis_mode:standalone", "tierkit_gateway:1",
		fmt.Sprintf("uptime_in_seconds:%d", int(time.Since(startTime).Seconds())),
		"go_version:"+runtime.Version(), fmt.Sprintf("backend:%s", g.cfg.Backend.Kind),
		fmt.Sprintf("shards:%d", g.backend.Shards()))
	srv := s.srv()
	if srv != nil {
		section("Clients", fmt.Sprintf("connected_clients:%d", srv.active.Load()),
			"blocked_clients:0", // no blocking commands
			fmt.Sprintf("maxclients:%d", g.cfg.Limits.MaxConns))
	}
	if all || want["memory"] { // redis-cli --stat reads used_memory
		used := heapBytes()
		section("Memory", fmt.Sprintf("used_memory:%d", used), "used_memory_human:"+humanBytes(used))
	}
	section("Stats", statsLines(s, srv)...)
	// The gateway takes writes: to a client or a monitoring tool it is a
	// master, with no replicas of its own (its shards' are behind it).
	section("Replication", "role:master", "connected_slaves:0")
	var tl []string
	if all || want["tenants"] {
		tl = tenantLines(g, s.tenant)
	}
	section("Tenants", tl...)
	section("Backend", shardLines(g)...)
	section("Keyspace")
	return verbatim(b.String())
}

// statsLines are INFO's Stats section: Redis's counters the gateway keeps
// and its own (batching, coalescing, admission), with the server's when
// the session has one.
func statsLines(s *session, srv *Server) []string {
	g := s.g
	bs := g.batches.Stats()
	cs := g.flights.Stats()
	ls := g.limiter.Stats()
	stats := []string{
		fmt.Sprintf("total_commands_processed:%d", s.processed()),
		fmt.Sprintf("backend_calls:%d", g.n.backendCalls.Load()),
		fmt.Sprintf("backend_ops:%d", g.n.backendOps.Load()),
		fmt.Sprintf("batch_mean_fill:%.3f", bs.MeanFill),
		fmt.Sprintf("batch_deduped:%d", bs.Deduped),
		fmt.Sprintf("coalesce_calls:%d", cs.Calls),
		fmt.Sprintf("coalesce_joins:%d", cs.Joins),
		fmt.Sprintf("admission_limit:%d", ls.Limit),
		fmt.Sprintf("admission_load:%.3f", ls.Load),
		fmt.Sprintf("shed_total:%d", g.n.shed.Load()), // commands, as gateway_shed_total and the tenants' shed=
		fmt.Sprintf("throttled_total:%d", g.n.throttled.Load()),
		fmt.Sprintf("overloaded_total:%d", g.n.overloaded.Load()), // commands, as gateway_overloaded_total
		fmt.Sprintf("denied_total:%d", g.n.denied.Load()),
		fmt.Sprintf("acl_access_denied_auth:%d", g.n.authFailures.Load()), // Redis 7's field: AUTH and HELLO AUTH refused
	}
	if srv != nil {
		stats = append(stats, fmt.Sprintf("total_connections_received:%d", srv.accepted.Load()),
			fmt.Sprintf("rejected_connections:%d", srv.refused.Load()),
			fmt.Sprintf("protocol_errors:%d", srv.protoErrors.Load()),
			fmt.Sprintf("tls_handshake_failures:%d", srv.tlsFailures.Load()),
			fmt.Sprintf("requests_too_large:%d", srv.tooLarge.Load()),
			fmt.Sprintf("connection_panics:%d", srv.panics.Load()))
	}
	return append(stats, fmt.Sprintf("request_panics:%d", g.n.panics.Load())) // panics.go
}

// processed is INFO's total_commands_processed: the commands processed
// before this INFO, as redis-server counts them, a command once it ran. The
// gateway counts a command as it starts (its /control "commands"), so this
// INFO, or the EXEC that runs it, is counted already and left out here,
// and the commands EXEC ran before it, which EXEC counts once it
// committed, are added.
func (s *session) processed() uint64 {
	n := s.g.n.commands.Load() + uint64(s.txs.ran)
	if n == 0 { // not run as a command (tests)
		return 0
	}
	return n - 1
}

// shardLines are the Backend section's lines: per shard, and per replica of
// a shard, whether it answers (health.go), the batches it failed, and,
// during an outage, since when.
func shardLines(g *Gateway) []string {
	reps := g.replicas()
	lines := make([]string, 0, len(g.health)+len(reps))
	for i := range g.health {
		lines = append(lines, fmt.Sprintf("shard%d:%s", i, g.health[i].infoFields()))
	}
	for _, r := range reps {
		lines = append(lines, fmt.Sprintf("shard%d_replica%d:addr=%s,%s", r.shard, r.index, r.addr, r.health.infoFields()))
	}
	return lines
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// heapBytes is the Go heap's live and not yet swept objects: the gateway's
// used_memory.
func heapBytes() uint64 {
	m := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	rtmetrics.Read(m)
	if m[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return m[0].Value.Uint64()
}

// humanBytes formats n as Redis's used_memory_human does (1.13M).
func humanBytes(n uint64) string {
	f := float64(n)
	for _, u := range []string{"B", "K", "M", "G"} {
		if f < 1024 || u == "G" {
			if u == "B" {
				return fmt.Sprintf("%dB", n)
			}
			return fmt.Sprintf("%.2f%s", f, u)
		}
		f /= 1024
	}
	return ""
}

// tenantLines are the Tenants section's lines: the caller's tenant's (none
// without one), its counts of commands, then shed's of each priority
// (requests: a pipelined run or an EXEC admitted as one counts once),
// admitted, refused (for any reason, or canceled in the queue) and queued.
// Another tenant's line is not shown: it gave every tenant's name (the
// usernames AUTH takes) and traffic to any tenant, and with an open default
// tenant to anyone who could connect. /metrics and /control have them all.
func tenantLines(g *Gateway, t *tenant) []string {
	if t == nil {
		return nil
	}
	name := t.cfg.Name
	l := fmt.Sprintf("tenant_%s:requests=%d,backend_calls=%d,shed=%d,throttled=%d,denied=%d",
		name, t.requests.Load(), t.backendCalls.Load(), t.shed.Load(), t.throttled.Load(), t.denied.Load())
	// Its own buckets only: shedBuckets reads every tenant's, a walk over
	// the whole tenant table under the lock admissions take, per INFO.
	var buckets [shedPriorities]shed.BucketStats // zero if shed keeps none yet
	for _, b := range g.shedder.Tenant(name) {
		if b.Priority >= 0 && b.Priority < shedPriorities {
			buckets[b.Priority] = b
		}
	}
	for p, b := range buckets {
		l += fmt.Sprintf(",admitted_p%d=%d,refused_p%d=%d,queued_p%d=%d", p, b.Admitted, p, b.Shed()+b.Canceled, p, b.Queued)
	}
	return []string{l}
}
