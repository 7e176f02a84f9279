package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counterMix is what TestCounterRelations sends, each step one by one
// (pipelined false) or in one write: pipelined runs with refusals by
// arity, the ACL and unknown names among them, MULTI/EXEC committed, null
// (the connection's own write of a watched key), EXECABORT, CROSSSLOT and
// with an error reply inside, and, by the tenant "q" (quota burst 3), the
// same commands refused over quota.
var counterMix = []struct {
	tenant    string
	pipelined bool
	cmds      []string
}{
	{"default", true, []string{"SET {e}a 1", "GET {e}a", "MGET {e}a {e}b", "INCR {e}c", "GET", "SET {e}a",
		"GET {x}a", "NOSUCH {e}a", "INFO stats", "DEL {e}b", "GET {e}c"}},
	{"default", true, []string{"GET {e}a", "SET {e}b 2", "GET {e}b", "PING", "INFO", "MGET {e}a {e}b {e}c"}},
	{"default", false, []string{"MULTI", "SET {e}a 1", "GET {e}a", "INCR {e}a", "EXEC"}},
	{"default", false, []string{"MULTI", "SET {e}s x", "INCR {e}s", "PING", "EXEC"}},
	{"default", true, []string{"WATCH {e}w", "SET {e}w x", "MULTI", "GET {e}w", "SET {e}a 2", "EXEC"}},
	{"default", false, []string{"WATCH {e}w {e}a", "GET {e}w", "MULTI", "GET {e}a", "EXEC"}},
	{"default", true, []string{"MULTI", "SET {e}a", "GET {e}a", "EXEC"}},
	{"default", false, []string{"MULTI", "SET {e}a 1", "SET {f}a 1", "EXEC"}},
	{"default", true, []string{"MULTI", "GET {x}a", "SET {e}a 1", "EXEC"}},
	{"default", true, []string{"WATCH {x}a", "UNWATCH", "DISCARD", "EXEC"}},
	{"q", false, []string{"GET {q}a", "WATCH {q}a", "GET {q}a", "UNWATCH"}},
	{"q", true, []string{"GET {q}a", "SET {q}b 1", "MGET {q}a {q}b", "INFO"}},
	{"q", false, []string{"WATCH {q}a", "MULTI", "SET {q}a 1", "GET {q}a", "EXEC"}},
	{"q", false, []string{"GET {q}a", "INCR {q}c", "MULTI", "SET {q}a 1", "EXEC"}},
	{"q", false, []string{"WATCH {q}a", "MULTI", "PING", "EXEC"}},
}

// TestCounterRelations drives counterMix on memkv and on Redis shards, then
// checks every relation the README states between the counters: /control's
// and the host state's commands and errors (errors at most commands), the
// tenants' requests against gateway_requests_total and its errors against
// /control's, the tenants' throttled, shed, denied and backend calls
// against the totals in /metrics, INFO and /control, and INFO's
// total_commands_processed against the commands counted.
func TestCounterRelations(t *testing.T) {
	tenants := []TenantConfig{
		{Name: "default", KeyPrefixes: []string{"{e}", "{f}", "{q}"}},
		{Name: "q", Password: "p", QuotaRate: 0.001, QuotaBurst: 3},
	}
	backends := map[string]func(t *testing.T) BackendConfig{
		"memkv": func(*testing.T) BackendConfig { return BackendConfig{Shards: 4} },
		"redis": func(t *testing.T) BackendConfig {
			a, b := startRedis(t), startRedis(t)
			return BackendConfig{Kind: "redis", Redis: []string{a.addr, b.addr}, Pool: 2}
		},
	}
	for _, kind := range []string{"memkv", "redis"} {
		t.Run(kind, func(t *testing.T) {
			in := startGateway(t, Config{HTTPAddr: "-", Backend: backends[kind](t), Tenants: tenants})
			g := in.gw
			require.NotEqual(t, g.shard("{e}a"), g.shard("{f}a"), "CROSSSLOT's keys")
			conns := map[string]*respConn{}
			for _, name := range []string{"default", "q"} {
				rc, err := dialRESP(in.Addr())
				require.NoError(t, err)
				defer rc.close()
				if name != "default" {
					r, err := rc.do([][]string{{"AUTH", name, "p"}}, false)
					require.NoError(t, err)
					require.Equal(t, byte('+'), r[0].typ, "AUTH: %v", r[0])
				}
				conns[name] = rc
			}
			for _, step := range counterMix {
				var cmds [][]string
				for _, c := range step.cmds {
					cmds = append(cmds, strings.Fields(c))
				}
				var replies []rval
				if step.pipelined {
					r, err := conns[step.tenant].do(cmds, false)
					require.NoError(t, err)
					replies = r
				} else {
					for _, c := range cmds {
						r, err := conns[step.tenant].do([][]string{c}, false)
						require.NoError(t, err)
						replies = append(replies, r...)
					}
				}
				require.Len(t, replies, len(cmds))
				t.Logf("%s: %v -> %v", step.tenant, step.cmds, replies)
			}
			checkCounterRelations(t, g, conns)
		})
	}
}

// checkCounterRelations checks the relations between the gateway's counters
// with nothing in flight; conns are an idle connection of each tenant, for
// INFO (whose Tenants section is its caller's tenant's line).
func checkCounterRelations(t *testing.T, g *Gateway, conns map[string]*respConn) {
	t.Helper()
	before := g.n.commands.Load()
	r, err := conns["default"].do([][]string{{"INFO"}}, false)
	require.NoError(t, err)
	info := infoLines(r[0].s)
	for name, rc := range conns {
		r, err := rc.do([][]string{{"INFO", "tenants"}}, false)
		require.NoError(t, err)
		info["tenant_"+name] = infoLines(r[0].s)["tenant_"+name]
	}
	assert.Equal(t, strconv.FormatUint(before, 10), info["total_commands_processed"],
		"INFO's total_commands_processed: the commands before it")

	ctl, host := g.counters(), g.hostSnapshot()
	assert.LessOrEqual(t, ctl["errors"], ctl["commands"], "/control's errors at most its commands")
	assert.Equal(t, ctl["commands"], host.Commands, "host state's commands")
	assert.Equal(t, ctl["errors"], host.Errors, "host state's errors")

	var reqs, errs float64
	perTenant := map[string]float64{}
	for _, m := range family(t, g, "gateway_requests_total") {
		v := m.value
		reqs += v
		perTenant[m.labels["tenant"]] += v
		if m.labels["outcome"] == "error" {
			errs += v
		}
	}
	assert.Equal(t, float64(ctl["errors"]), errs, "/control's errors vs gateway_requests_total{outcome=error}")
	var sum struct{ requests, calls, shed, throttled, denied uint64 }
	for name, ten := range g.tenants {
		assert.Equal(t, float64(ten.requests.Load()), perTenant[name], "tenant %s: requests vs gateway_requests_total", name)
		assert.Equal(t, ten.requests.Load(), host.Tenants[name].Requests, "tenant %s: host state's requests", name)
		// Its commands' counts, then shed's per priority (TestInfoTenantShedByPriority).
		want := fmt.Sprintf("requests=%d,backend_calls=%d,shed=%d,throttled=%d,denied=%d,admitted_p0=",
			ten.requests.Load(), ten.backendCalls.Load(), ten.shed.Load(), ten.throttled.Load(), ten.denied.Load())
		assert.True(t, strings.HasPrefix(info["tenant_"+name], want), "INFO's tenant line %q, want %q...", info["tenant_"+name], want)
		assert.LessOrEqual(t, ten.throttled.Load()+ten.shed.Load(), ten.requests.Load(),
			"tenant %s: each command refused over quota or shed counts as a request", name)
		sum.requests += ten.requests.Load()
		sum.calls += ten.backendCalls.Load()
		sum.shed += ten.shed.Load()
		sum.throttled += ten.throttled.Load()
		sum.denied += ten.denied.Load()
	}
	assert.Equal(t, reqs, float64(sum.requests), "gateway_requests_total vs the tenants' requests")
	assert.Equal(t, sum.calls, g.n.backendCalls.Load(), "gateway_backend_calls_total vs the tenants' backend_calls")
	assert.Equal(t, sum.shed, g.n.shed.Load(), "gateway_shed_total vs the tenants' shed")
	assert.Equal(t, sum.throttled, g.n.throttled.Load(), "gateway_throttled_total vs the tenants' throttled")
	assert.Equal(t, sum.denied, g.n.denied.Load(), "denied_total vs the tenants' denied")
	assert.LessOrEqual(t, g.n.throttled.Load()+g.n.shed.Load(), g.n.errors.Load(),
		"each command refused over quota or shed counts as an error")
	assert.Greater(t, sum.throttled, uint64(0), "the mix has refusals over quota")
	assert.Greater(t, sum.denied, uint64(0), "the mix has ACL refusals")
	for k, v := range map[string]uint64{"shed_total": g.n.shed.Load(), "throttled_total": g.n.throttled.Load(),
		"denied_total": g.n.denied.Load(), "backend_calls": g.n.backendCalls.Load(), "overloaded_total": g.n.overloaded.Load()} {
		assert.Equal(t, strconv.FormatUint(v, 10), info[k], "INFO's %s", k)
	}
	assert.Equal(t, host.Shed, ctl["shed"])
	assert.Equal(t, host.Throttled, ctl["throttled"])
	t.Logf("control %v, INFO total_commands_processed %s, gateway_requests_total %v (errors %v)",
		ctl, info["total_commands_processed"], reqs, errs)
}

// infoLines maps the fields of an INFO reply to their values.
func infoLines(s string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(s, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "#") {
			m[k] = v
		}
	}
	return m
}

type metricValue struct {
	labels map[string]string
	value  float64
}

// family returns the series of the counter family name in g's registry.
func family(t *testing.T, g *Gateway, name string) []metricValue {
	t.Helper()
	mfs, err := g.metrics.reg.Gather()
	require.NoError(t, err)
	var out []metricValue
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out = append(out, metricValue{labels, m.GetCounter().GetValue()})
		}
	}
	return out
}
