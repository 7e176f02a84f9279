// Command c2c prints the time a cache line takes to go from one core of this
// machine to another and back, as a Go program with two goroutines sees it
// now (the median of 5 rounds of 4,000 round trips).
//
// compare.sh prints it before and after its rows. On the 2-core VMs the
// comparisons run on it is not a constant of the host: one VM moved between
// about 60, 200 and 1,000 ns within minutes, as the hypervisor placed its two
// virtual CPUs closer or further apart, and a proxy whose goroutines hand
// requests to each other pays it on every hand-off across the cores, where a
// one-thread event loop does not.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/tierkit/tierkit/internal/corelat"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "c2c:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	d, ok := corelat.RoundTrip(5, 4000)
	if !ok {
		return fmt.Errorf("cannot measure: needs GOMAXPROCS >= 2 and two goroutines running at once")
	}
	_, err := fmt.Fprintf(w, "core-to-core round trip: %d ns\n", d.Nanoseconds())
	return err
}
