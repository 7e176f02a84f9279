package mix_test

import (
	"fmt"

	"github.com/tierkit/tierkit/internal/mix"
)

// Spreading a key over 16 stripes: the low bits of consecutive keys would
// walk the stripes in order; their mixes scatter.
func ExampleMix64() {
	for k := range uint64(4) {
		fmt.Println(k, mix.Mix64(k)>>60)
	}
	// Output:
	// 0 0
	// 1 5
	// 2 13
	// 3 1
}
