package main

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// FuzzMemkvWatch drives one connection of a memkv gateway through WATCH,
// UNWATCH, MULTI, GET and SET (queued inside MULTI), EXEC and DISCARD, with
// a second connection writing the same keys in between, and checks each
// reply against a model of Redis's optimistic transactions:
//   - EXEC answers null, and writes nothing, when a watched key was written
//     since its WATCH, by either connection; it runs the queued commands
//     (GETs see the values written before, and by, the transaction) when
//     nothing was written since the first WATCH; otherwise it may do either
//     (memkv validates every key the transaction read, not only watched
//     ones), but a run's replies are those of the data at EXEC;
//   - a GET after WATCH and before MULTI answers a value its key held since
//     that WATCH (memkv reads the transaction's snapshot);
//   - a WATCH outside MULTI that names a key not yet watched reads the store
//     and is admitted at the cost of its distinct keys; one naming only
//     watched keys is not admitted; no command leaves an admission held.
//
// Each op byte: the low 3 bits choose the command, the rest its keys (of
// four, in one hash slot) and value.
func FuzzMemkvWatch(f *testing.F) {
	f.Add([]byte{0x00, 0x02, 0x13, 0x03, 0x04})
	f.Add([]byte{0x08, 0x20, 0x07, 0x02, 0x0b, 0x03, 0x04, 0x02, 0x04})
	f.Add([]byte{0x00, 0x18, 0x02, 0x13, 0x05, 0x00, 0x04, 0x01, 0x00, 0x02, 0x06})
	in := startGateway(f, Config{HTTPAddr: "-"})
	var run atomic.Int64
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 48 {
			ops = ops[:48]
		}
		runWatchModel(t, in, fmt.Sprintf("{f%d}", run.Add(1)), ops)
	})
}

type watchModel struct {
	store   map[string]string
	watched map[string]bool
	dirty   bool                // a watched key was written since its WATCH
	written bool                // a key was written since the first WATCH
	history map[string][]string // the values each key held since the first WATCH
	multi   bool                // inside MULTI
	queued  []string            // "G"+key or "S"+key+"="+value
}

func (m *watchModel) write(k, v string) {
	m.store[k] = v
	if len(m.watched) > 0 {
		m.written = true
		m.history[k] = append(m.history[k], v)
	}
	if m.watched[k] {
		m.dirty = true
	}
}

func runWatchModel(t *testing.T, in *instance, tag string, ops []byte) {
	ctx := context.Background()
	a := client(t, in, nil).Conn()
	defer a.Close()
	b := client(t, in, nil)
	require.NoError(t, a.Ping(ctx).Err())
	require.NoError(t, b.Ping(ctx).Err())
	m := &watchModel{store: map[string]string{}, watched: map[string]bool{}, history: map[string][]string{}}
	key := func(i int) string { return fmt.Sprintf("%sk%d", tag, i%4) }
	var log []string
	for step, op := range ops {
		arg := int(op >> 3)
		k, v := key(arg), fmt.Sprint(step)
		var res any
		var err error
		switch op & 7 {
		case 0, 1: // WATCH of one or two keys
			keys := []any{"WATCH", k}
			if op&1 != 0 {
				keys = append(keys, key(arg>>2))
			}
			log = append(log, fmt.Sprint(keys...))
			before := in.gw.shedder.Stats().AdmittedCost
			err = a.Do(ctx, keys...).Err()
			m.watch(t, keys[1:], err, in.gw.shedder.Stats().AdmittedCost-before, key, log)
		case 2: // another connection writes
			log = append(log, "other SET "+k+" "+v)
			require.NoError(t, b.Set(ctx, k, v, 0).Err())
			m.write(k, v)
		case 3: // GET, queued inside MULTI
			log = append(log, "GET "+k)
			res, err = a.Do(ctx, "GET", k).Result()
			m.get(t, k, res, err, log)
		case 4: // SET, queued inside MULTI
			log = append(log, "SET "+k+" "+v)
			res, err = a.Do(ctx, "SET", k, v).Result()
			require.NoError(t, err, "%v", log)
			if m.multi {
				require.Equal(t, "QUEUED", res, "%v", log)
				m.queued = append(m.queued, "S"+k+"="+v)
				break
			}
			m.write(k, v)
		case 5: // MULTI
			log = append(log, "MULTI")
			err = a.Do(ctx, "MULTI").Err()
			require.Equal(t, m.multi, err != nil, "%v: %v", log, err)
			m.multi = true
		case 6: // EXEC
			log = append(log, "EXEC")
			res, err = a.Do(ctx, "EXEC").Result()
			m.exec(t, res, err, log)
		case 7: // UNWATCH or DISCARD
			if arg%2 == 0 {
				log = append(log, "UNWATCH")
				require.NoError(t, a.Do(ctx, "UNWATCH").Err(), "%v", log)
				if m.multi { // queued, as in Redis
					m.queued = append(m.queued, "U")
				} else {
					m.watched, m.dirty = map[string]bool{}, false
				}
				break
			}
			log = append(log, "DISCARD")
			err = a.Do(ctx, "DISCARD").Err()
			require.Equal(t, !m.multi, err != nil, "%v: %v", log, err)
			if m.multi {
				m.reset()
			}
		}
		require.Zero(t, in.gw.shedder.Stats().InFlight, "an admission held after %v", log)
	}
	if m.multi {
		require.NoError(t, a.Do(ctx, "DISCARD").Err())
	}
}

// watch checks a WATCH of keys, which answered err and was admitted at
// cost, against the model, and applies it.
func (m *watchModel) watch(t *testing.T, keys []any, err error, cost int64, key func(int) string, log []string) {
	if m.multi {
		require.Error(t, err, "%v", log)
		return
	}
	require.NoError(t, err, "%v", log)
	distinct, fresh := map[string]bool{}, false
	for _, x := range keys {
		distinct[x.(string)] = true
		fresh = fresh || !m.watched[x.(string)]
	}
	want := int64(0)
	if fresh {
		want = int64(len(distinct))
	}
	require.Equal(t, want, cost, "WATCH's admission: %v", log)
	if len(m.watched) == 0 { // the transaction begins
		m.written, m.history = false, map[string][]string{}
		for i := range 4 {
			v, ok := m.store[key(i)]
			if !ok {
				v = absent
			}
			m.history[key(i)] = []string{v}
		}
	}
	for x := range distinct {
		m.watched[x] = true
	}
}

// get checks a GET of k, which answered res and err, against the model.
func (m *watchModel) get(t *testing.T, k string, res any, err error, log []string) {
	if m.multi {
		require.Equal(t, "QUEUED", res, "%v", log)
		m.queued = append(m.queued, "G"+k)
		return
	}
	got := absent
	if err == nil {
		got = res.(string)
	} else {
		require.ErrorIs(t, err, redis.Nil, "%v", log)
	}
	if len(m.watched) > 0 {
		require.Contains(t, m.history[k], got, "GET after WATCH: %v", log)
		return
	}
	want, ok := m.store[k]
	if !ok {
		want = absent
	}
	require.Equal(t, want, got, "%v", log)
}

// absent stands for a key GET finds missing.
const absent = "(nil)"

func (m *watchModel) reset() {
	m.watched, m.dirty, m.multi, m.queued = map[string]bool{}, false, false, nil
}

// exec checks EXEC's reply against the model and applies the transaction.
func (m *watchModel) exec(t *testing.T, res any, err error, log []string) {
	if !m.multi {
		require.ErrorContains(t, err, "EXEC without MULTI", "%v", log)
		return
	}
	defer m.reset()
	if m.dirty || m.written && err == redis.Nil {
		require.ErrorIs(t, err, redis.Nil, "a watched key was written: EXEC aborts: %v (reply %v)", log, res)
		return
	}
	require.NoError(t, err, "%v", log)
	replies, ok := res.([]any)
	require.True(t, ok, "EXEC's reply %T %v: %v", res, res, log)
	require.Len(t, replies, len(m.queued), "%v", log)
	for i, q := range m.queued {
		k := q[1:]
		if q == "U" {
			require.Equal(t, "OK", replies[i], "%v", log)
			continue
		}
		if q[0] == 'S' {
			j := slices.Index([]byte(k), '=')
			m.store[k[:j]] = k[j+1:]
			require.Equal(t, "OK", replies[i], "%v", log)
			continue
		}
		if want, ok := m.store[k]; ok {
			require.Equal(t, want, replies[i], "EXEC's GET %s: %v", k, log)
		} else {
			require.Nil(t, replies[i], "EXEC's GET %s: %v", k, log)
		}
	}
}
