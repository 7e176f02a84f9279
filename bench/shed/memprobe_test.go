package shedbench

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// BenchmarkRandomLoad probes the memory system the way the shedder's deferred
// bookkeeping meets it with many tenants: hash a cold tenant name, then load
// one 64-byte line at a random place in a table of MB mebibytes, 64 loads at
// a time with nothing depending on them. ns/load is the cost of one such load;
// it sets how much a smaller tenant table saves (bench/shed/README.md, "Slots
// of 32 bytes").
func BenchmarkRandomLoad(b *testing.B) {
	names := make([]string, 100_000)
	for i := range names {
		names[i] = fmt.Sprintf("tenant-%06d", i)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	seed := maphash.MakeSeed()
	type line [8]uint64
	for _, mb := range []int{4, 8, 12, 16} {
		b.Run(fmt.Sprintf("MB=%d", mb), func(b *testing.B) {
			table := make([]line, mb<<20/64)
			n := uint64(len(table))
			var hs [64]uint64
			var sum uint64
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				for k := range hs {
					hs[k] = maphash.String(seed, names[i])
					sum += table[(hs[k]>>32*n)>>32][0]
					if i++; i == len(names) {
						i = 0
					}
				}
				for _, h := range hs { // the bookkeeping pass, on lines now cached
					table[(h>>32*n)>>32][1]++
				}
			}
			if sum == 1 {
				b.Log(sum) // keeps the loads
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hs)), "ns/load")
			b.ReportMetric(0, "ns/op")
		})
	}
}
