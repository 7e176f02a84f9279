// Package mix is the splitmix64 finalizer, the one integer mixer the kit
// uses wherever it spreads bits: the cache's integer keys and read stripes,
// the ring's probe sequence, rollout's buckets and the gateway's metric
// stripes. It is a bijection on uint64 in which every input bit moves about
// half of the output bits.
package mix

// Mix64 returns the splitmix64 finalizer of x.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
