package txn

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// big is a capacity above every pooling bound: maxPooled entries, twice that
// for flattened pairs, maxPooledBytes for the read buffer.
const big = 2*maxPooled + maxPooledBytes

// growers make one buffer of a core larger than the pool keeps, one case
// per buffer that reset keeps. TestPoolableCoversEveryBuffer checks that no
// kept buffer is missing from this list.
var growers = []struct {
	field string
	grow  func(c *core)
}{
	{"wb.idx.slots", func(c *core) { c.wb.idx.slots = make([]uint32, big) }},
	{"wb.ents", func(c *core) { c.wb.ents = make([]entry, 0, big) }},
	{"wb.chunks", func(c *core) { c.wb.chunks = make([][]byte, 0, big) }},
	{"wb.clears", func(c *core) { c.wb.clears = make([][]byte, 0, big) }},
	{"wb.cnodes", func(c *core) { c.wb.cnodes = make([]cnode, 0, big) }},
	{"wb.sorted", func(c *core) { c.wb.sorted = make([]int32, 0, big) }},
	{"wb.undo", func(c *core) { c.wb.undo = make([]undoRec, 0, big) }},
	{"wb.sps", func(c *core) { c.wb.sps = make([]spMark, 0, big) }},
	{"rbuf", func(c *core) { c.rbuf = make([]byte, 0, big) }},
	{"rends", func(c *core) { c.rends = make([]int, 0, big) }},
	{"rranges", func(c *core) { c.rranges = make([][]byte, 0, big) }},
	{"wranges", func(c *core) { c.wranges = make([][]byte, 0, big) }},
	{"scratch", func(c *core) { c.scratch = make([][]byte, 0, big) }},
	{"req.ReadKeys", func(c *core) { c.req.ReadKeys = make([][]byte, 0, big) }},
	{"req.ReadRanges", func(c *core) { c.req.ReadRanges = make([][]byte, 0, big) }},
	{"req.Sets", func(c *core) { c.req.Sets = make([][]byte, 0, big) }},
}

func TestPoolable(t *testing.T) {
	assert.True(t, new(core).poolable(), "an empty core")
	for _, g := range growers {
		t.Run(g.field, func(t *testing.T) {
			c := new(core)
			g.grow(c)
			assert.False(t, c.poolable(), "a core with a large %s would be pooled", g.field)
		})
	}
}

// TestPoolableCoversEveryBuffer walks core's slice fields: each must be
// bounded by poolable (listed in growers) or dropped by reset (set to nil).
func TestPoolableCoversEveryBuffer(t *testing.T) {
	listed := map[string]bool{}
	for _, g := range growers {
		listed[g.field] = true
	}
	dropped := map[string]bool{"req.Clears": true, "req.WriteRanges": true, "req.IdempotencyKey": true}
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			name := prefix + f.Name
			switch f.Type.Kind() {
			case reflect.Struct:
				walk(name+".", f.Type)
			case reflect.Slice, reflect.Map:
				assert.True(t, listed[name] || dropped[name], "core.%s is neither bounded by poolable nor dropped by reset", name)
			}
		}
	}
	walk("", reflect.TypeFor[core]())
}

// TestClearsWithoutLookupNotPooled: a transaction that clears many ranges
// and never reads indexes none of them (cnodes stays empty), so its clears
// alone must keep its core out of the pool.
func TestClearsWithoutLookupNotPooled(t *testing.T) {
	eng, err := memkv.New(memkv.Config{})
	require.NoError(t, err)
	tx, err := Begin(eng, Options{})
	require.NoError(t, err)
	k := make([]byte, 4)
	for i := range maxPooled + 1 {
		k[0], k[1], k[2], k[3] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
		require.NoError(t, tx.DeleteRange(k, append(k[:4:4], 0)))
	}
	c := tx.c
	require.Empty(t, c.wb.cnodes, "no lookup, no index")
	assert.False(t, c.poolable())
	tx.Rollback()
	_, _, err = tx.Get(context.Background(), k)
	assert.Error(t, err, "a finished transaction")
}
