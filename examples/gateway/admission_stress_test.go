package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// admissionStressCmds returns a random request for client id: a single
// command, a pipeline (plain or mixed), a transaction, a WATCH, a KVSCAN,
// some of which fail (a wrong type, an INCR made to panic).
func admissionStressCmds(r *rand.Rand, id int) [][]string {
	k := func() string { return fmt.Sprintf("{s%d}k%d", r.IntN(4), r.IntN(8)) }
	switch r.IntN(9) {
	case 0:
		return [][]string{{"GET", k()}}
	case 1:
		return [][]string{{"SET", k(), "v"}}
	case 2: // a plain run
		var cmds [][]string
		for range 2 + r.IntN(20) {
			switch r.IntN(3) {
			case 0:
				cmds = append(cmds, []string{"GET", k()})
			case 1:
				cmds = append(cmds, []string{"SET", k(), "v"})
			default:
				cmds = append(cmds, []string{"MGET", k(), k(), k()})
			}
		}
		return cmds
	case 3: // a mixed run: commands admitted one by one, some failing
		return [][]string{{"INCR", "{s0}k0"}, {"APPEND", k(), "x"}, {"GET", k()}, {"INCR", fmt.Sprintf("n%d", id)}, {"DEL", k()}}
	case 4:
		return [][]string{{"MULTI"}, {"SET", "{s1}k1", "v"}, {"GET", "{s1}k2"}, {"INCR", "{s1}n"}, {"EXEC"}}
	case 5:
		return [][]string{{"WATCH", "{s2}k1"}, {"GET", "{s2}k1"}, {"MULTI"}, {"SET", "{s2}k1", "v"}, {"EXEC"}}
	case 6:
		return [][]string{{"KVSCAN", "{s", "{t", "LIMIT", fmt.Sprint(1 + r.IntN(20))}}
	case 7: // panics (a bug: the connection is closed)
		return [][]string{{"GET", k()}, {"INCR", "boom" + k()}}
	}
	return [][]string{{"MULTI"}, {"INCR", "boom"}, {"EXEC"}}
}

// admissionStressKnobs changes the admission knobs (and the chaos delay and
// the request timeout, which fail backend calls) until stop is closed.
func admissionStressKnobs(t *testing.T, reg *control.Registry, r *rand.Rand, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	us := time.Microsecond
	for {
		select {
		case <-stop:
			return
		default:
		}
		var ch control.Change
		switch r.IntN(8) {
		case 0:
			ch = control.Change{Knob: "aimd.max", Value: control.Int([]int64{4, 6, 16, 64}[r.IntN(4)])}
		case 1:
			ch = control.Change{Knob: "shed.max_queue", Value: control.Int([]int64{1, 2, 8, 1024}[r.IntN(4)])}
		case 2:
			ch = control.Change{Knob: "shed.queue_deadline", Value: control.Duration([]time.Duration{time.Millisecond, 5 * time.Millisecond, 100 * time.Millisecond}[r.IntN(3)])}
		case 3:
			ch = control.Change{Knob: "shed.on_arrival", Value: control.Bool(r.IntN(2) == 0)}
		case 4:
			ch = control.Change{Knob: "shed.arrival_order", Value: control.Bool(r.IntN(2) == 0)}
		case 5:
			ch = control.Change{Knob: "quota.default.rate", Value: control.Float([]float64{0, 0, 200, 2000}[r.IntN(4)])}
		case 6:
			ch = control.Change{Knob: "chaos.delay_us", Value: control.Int([]int64{0, 0, 200, 3000}[r.IntN(4)])}
		default:
			ch = control.Change{Knob: "gateway.request_timeout", Value: control.Duration([]time.Duration{2 * time.Millisecond, 50 * time.Millisecond}[r.IntN(2)])}
		}
		if _, err := reg.Apply(control.Request{Who: "test", Why: "stress", Changes: []control.Change{ch}}); err != nil {
			t.Errorf("%s: %v", ch.Knob, err)
			return
		}
		time.Sleep(time.Duration(r.IntN(2000)) * us) // pacing only: no outcome depends on it
	}
}

// admissionRefusal reports a refusal's reply that does not start with the
// code of the stage that refused it, or "" for any other reply.
func admissionRefusal(v rval) string {
	if v.typ != '-' {
		return ""
	}
	for _, want := range []string{errShed.Error(), errOverloaded.Error(), errMemory.Error(), errThrottled.Error()} {
		if v.s == want {
			return ""
		}
	}
	if strings.Contains(v.s, "shed") || strings.Contains(v.s, "aimd") || strings.Contains(v.s, "quota") {
		return v.s
	}
	return ""
}

// TestAdmissionReleasedUnderStress runs many requests of every kind through
// the admission chain (quota, shed, the limiter) while its knobs change,
// backend calls time out, commands panic and clients hang up with requests
// in flight, then checks that every admission was given back once: shed's
// and the limiter's in-flight counts are 0, and each request shed admitted
// reached the limiter once and was settled once there.
func TestAdmissionReleasedUnderStress(t *testing.T) {
	incr := commands["INCR"]
	incrFn := incr.fn
	incr.fn = func(ctx context.Context, s *session, a [][]byte) any {
		if strings.HasPrefix(string(a[1]), "boom") {
			panic("boom")
		}
		return incrFn(ctx, s, a)
	}
	t.Cleanup(func() { incr.fn = incrFn }) // after the gateway's shutdown
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 4, MaxLimit: 64, MaxQueue: 8,
		QueueDeadline: Duration(5 * time.Millisecond), Backend: BackendConfig{Shards: 3}})
	g := in.gw
	require.NoError(t, in.reg.SetConfig(control.Config{})) // no change budget
	stop, knobsDone := make(chan struct{}), make(chan struct{})
	go admissionStressKnobs(t, in.reg, rand.New(rand.NewPCG(1, 2)), stop, knobsDone)

	const clients, steps = 12, 120
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	for id := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(id), 7))
			var c *respConn
			defer func() {
				if c != nil {
					c.close()
				}
			}()
			for range steps {
				if c == nil {
					var err error
					if c, err = dialRESP(in.Addr()); err != nil {
						t.Error(err)
						return
					}
				}
				cmds := admissionStressCmds(r, id)
				if r.IntN(8) == 0 { // the client hangs up with its request in flight
					_ = c.send(cmds, false)
					c.close()
					c = nil
					continue
				}
				rs, err := c.do(cmds, false)
				for _, v := range rs {
					if s := admissionRefusal(v); s != "" {
						mu.Lock()
						bad = append(bad, s)
						mu.Unlock()
					}
				}
				if err != nil { // a panic closed the connection
					c.close()
					c = nil
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-knobsDone
	require.Empty(t, bad, "refusals not naming their stage")

	settled := func() bool { return g.shedder.Stats().InFlight == 0 && g.limiter.Stats().InFlight == 0 }
	eventuallyWithin(t, 10*time.Second, "shed's and the limiter's in flight back to 0", settled)
	sh, li := g.shedder.Stats(), g.limiter.Stats()
	t.Logf("shed %+v", sh)
	t.Logf("limiter %+v", li)
	require.NotZero(t, in.srv.panics.Load(), "commands panicked")
	require.NotZero(t, sh.ShedQueueDeadline+sh.ShedBucketFull, "requests were shed")
	require.Equal(t, sh.Admitted, li.Admitted+li.Rejected(), "each request shed admitted reached the limiter once")
	require.Equal(t, li.Admitted, li.Succeeded+li.Failed, "each admission was settled once")
}
