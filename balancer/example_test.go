package balancer_test

import (
	"fmt"
	"time"

	"github.com/tierkit/tierkit/balancer"
)

// A tier of four hosts where one 64-core host runs hot: the balancer lowers its
// weight, raises the cool ones, and says why. Every known host is outside the
// deadband, so the tier counts as unsettled and the whole error is corrected at once;
// the new host starts from its cores times the median weight per core, times 0.85,
// and the weights are then recentered on a median of 1.
func Example() {
	b, err := balancer.New(balancer.Config{})
	if err != nil {
		panic(err)
	}
	hosts := []balancer.Host{
		{ID: "a", Cores: 32, Weight: 0.5, CPU: 0.50},
		{ID: "b", Cores: 64, Weight: 1.0, CPU: 0.72},
		{ID: "c", Cores: 64, Weight: 1.0, CPU: 0.52},
		{ID: "d", Cores: 128, Weight: 2.0, CPU: 0.50},
		{ID: "e", Cores: 64, New: true},
	}
	res, err := b.Step(time.Unix(0, 0), hosts)
	if err != nil {
		panic(err)
	}
	fmt.Println("state:", res.State)
	for _, d := range res.Hosts {
		fmt.Printf("%s %.2f -> %.2f load %.2f %s\n", d.ID, d.Old, d.New, d.Load, d.Reason)
	}
	// Output:
	// state: task-churn
	// a 0.50 -> 0.60 load 0.89 raised
	// b 1.00 -> 0.83 load 1.29 lowered
	// c 1.00 -> 1.15 load 0.93 raised
	// d 2.00 -> 2.40 load 0.89 raised
	// e 0.00 -> 1.00 load 0.00 capacity
}
