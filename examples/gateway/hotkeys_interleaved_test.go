package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestHotKeysInterleavedReaders: readers that read other keys between their
// GETs of a hot key (two hot keys read in turn, or a hot key and others) come
// back every cycle, and are expected once, as readers that read only the hot
// key are. Counted as new readers in every cycle, they were expected twice:
// the fetch then waited for 3/2 of the readers there are, and every wait that
// could ran out of the linger.
func TestHotKeysInterleavedReaders(t *testing.T) {
	const a, b, m = 3, 4, hotGets + 12                                 // a and b in different slots
	others := func(i int) uint64 { return uint64(5 + hotSlots*(i+1)) } // cold keys, in one more slot
	tests := []struct {
		name    string
		between func(k *hotKeys, rd *hotReader, i int) // what a reader reads after its GET of a
	}{
		{"two hot keys in turn", func(k *hotKeys, rd *hotReader, _ int) { k.arrived(b, rd) }},
		{"a hot key and cold ones", func(k *hotKeys, rd *hotReader, i int) {
			k.arrived(others(i), rd)
			k.done(others(i))
		}},
		{"a hot key and three others", func(k *hotKeys, rd *hotReader, i int) {
			k.arrived(b, rd)
			k.arrived(others(i), rd)
			k.done(others(i))
			k.arrived(others(i+m), rd)
			k.done(others(i + m))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, rds := newHotKeys(time.Hour), make([]hotReader, m)
			cycle := func() uint32 { // every reader reads a, then what it reads between; the need planned after the first GET of a
				var need uint32
				for i := range rds {
					k.arrived(a, &rds[i])
					if i == 0 {
						need, _ = k.plan(a)
					}
					tt.between(k, &rds[i], i)
				}
				k.done(a)
				k.done(b)
				return need
			}
			cycle()
			for i := range 4 {
				assert.Equal(t, needFor(m), cycle(), "cycle %d: %d readers", i+1, m)
			}
		})
	}
}
