package memkv_test

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// FuzzStore drives puts, deletes, clears, limited scans and GC from the fuzz
// input and checks every read against a map model of each version, that a
// commit whose reads were overwritten is always rejected, and that deleting an
// absent key makes no reader of it conflict.
func FuzzStore(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("\x10\x22\x35\x47\x59\x6a\x7b\x8c\x9d\xae\xbf"))
	f.Add(bytes.Repeat([]byte{0x03, 0x81, 0x42}, 20))
	f.Fuzz(func(t *testing.T, ops []byte) {
		s, err := memkv.New(memkv.Config{Splits: [][]byte{{'c'}, {'f'}}, HistoryVersions: 16, GCStep: 2})
		require.NoError(t, err)
		models := []map[string]string{{}}
		key := func(x byte) []byte { return []byte{'a' + x%8} }
		for i, op := range ops {
			m := maps.Clone(models[len(models)-1])
			rv := s.ReadVersion()
			req := &memkv.CommitRequest{ReadVersion: rv}
			k := key(op >> 3)
			switch op % 4 {
			case 0, 1:
				req.Sets = [][]byte{k, {op}}
				m[string(k)] = string([]byte{op})
			case 2:
				req.Sets = [][]byte{k, nil}
				delete(m, string(k))
			case 3:
				e := key(op >> 5)
				req.Clears = [][]byte{k, e}
				for mk := range m {
					if mk >= string(k) && mk < string(e) {
						delete(m, mk)
					}
				}
			}
			_, err := s.Commit(ctx, req)
			require.NoError(t, err)
			models = append(models, m)
			// A stale read of the written key must conflict: a set, the
			// delete of a key that existed, or a clear that removed it. The
			// delete of an absent key writes nothing, so it must not.
			_, err = s.Commit(ctx, &memkv.CommitRequest{ReadVersion: rv, ReadKeys: [][]byte{k}})
			_, existed := models[len(models)-2][string(k)]
			cleared := op%4 == 3 && existed && string(k) < string(req.Clears[1])
			switch {
			case op%4 < 2 || (op%4 == 2 && existed) || cleared:
				require.ErrorIs(t, err, memkv.ErrConflict, "op %d (%#x) at read version %d", i, op, rv)
			case op%4 == 2:
				require.NoError(t, err, "op %d (%#x): deleting an absent key conflicts", i, op)
			}
			if i%7 == 0 {
				s.GC()
			}
		}
		for v := s.Horizon(); v <= s.ReadVersion(); v++ {
			m := models[v]
			limit := int(v % 4)
			for _, rev := range []bool{false, true} {
				got, err := s.Scan(ctx, v, nil, nil, limit, rev, nil)
				require.NoError(t, err)
				want := slices.Sorted(maps.Keys(m))
				if rev {
					slices.Reverse(want)
				}
				if limit > 0 && len(want) > limit {
					want = want[:limit]
				}
				gotKeys := []string{}
				for j := 0; j < len(got); j += 2 {
					gotKeys = append(gotKeys, string(got[j]))
					require.Equal(t, m[string(got[j])], string(got[j+1]))
				}
				require.Equal(t, append([]string{}, want...), gotKeys, "version %d", v)
			}
		}
	})
}
