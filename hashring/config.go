package hashring

import (
	"fmt"
	"math/bits"
)

// DefaultSlots is the slot-table size used when [Config.Slots] is zero: 2^18 slots,
// 512 KiB of table. It keeps every node within one slot of its exact share: up to
// 1,000 nodes of 26 to 126 "cores" the smallest owns about 90 slots, so within
// about 1/90 (1.1%) of its share, not 1%: the 1,000-node ring of
// bench/hashring/README.md, built by [New], has a max share/expected of 1.0041, but
// a derived ring can keep a node's extra slot where New would have rounded down.
const DefaultSlots = 1 << 18

// MaxNodes is the largest number of nodes a ring holds (slot owners are uint16).
const MaxNodes = 1<<16 - 1

// Config holds the placement parameters of a ring. They are part of the placement:
// rings that must agree on where keys go must use the same Config. There is no
// SetConfig: a ring is immutable, and changing Slots re-places every key (build a new
// ring with [New]). The only runtime knob, the bounded-load factor c, is an argument
// of [Ring.LookupBounded].
type Config struct {
	// Slots is the number of slots in the lookup table: a power of two between 2^8 and
	// 2^24. Zero means [DefaultSlots]. A node's share is its slot count / Slots, held
	// within one slot of its exact weighted share, so a node of expected share s is at
	// most 1 + 1/(s*Slots) times its expected load. Use more slots for more nodes
	// (s*Slots >= 100 for the lightest node for 1% balance: Slots/nodes >= 100 with
	// equal weights); each slot costs 2 bytes and build time is linear in Slots.
	Slots int
}

func (c Config) slots() int {
	if c.Slots == 0 {
		return DefaultSlots
	}
	return c.Slots
}

// validate reports a Config out of range, as an error wrapping
// [ErrInvalidConfig].
func (c Config) validate() error {
	s := c.slots()
	if s < 1<<8 || s > 1<<24 || bits.OnesCount(uint(s)) != 1 {
		return fmt.Errorf("hashring: Config.Slots %d must be a power of two in [2^8, 2^24]: %w", c.Slots, ErrInvalidConfig)
	}
	return nil
}
