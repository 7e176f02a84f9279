package memkv_test

import (
	"fmt"
	"testing"

	"github.com/tierkit/tierkit/memkv"
)

// BenchmarkPutSubscribed: Put with one subscriber
// that drains every drain puts, so the feed's push path is on the hot path.
func BenchmarkPutSubscribed(b *testing.B) {
	for _, drain := range []int{1, 256} {
		b.Run(fmt.Sprintf("drain=%d", drain), func(b *testing.B) {
			s, keys := benchStore(b)
			sub := s.Subscribe()
			defer sub.Close()
			val := []byte("value-0123456789")
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := s.Put(ctx, keys[i%benchKeys], val); err != nil {
					b.Fatal(err)
				}
				i++
				if i%drain == 0 {
					for {
						_, ok, err := sub.TryNext()
						if err != nil {
							b.Fatal(err)
						}
						if !ok {
							break
						}
					}
				}
			}
		})
	}
}

// BenchmarkSubscribeIdle: the cost of Subscribe and Close for a subscriber
// that never receives anything.
func BenchmarkSubscribeIdle(b *testing.B) {
	s, err := memkv.New(memkv.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Subscribe().Close()
	}
}
