package client_test

import (
	"fmt"
	"log"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// The routing decision of every request, shown with Client.Route (which sends
// nothing): rollout puts "user:" keys on the gateway, the weighted ring of the
// region's gateway hosts picks the host and the retry host, other keys and
// everything after the kill switch go straight to their backend shard.
func Example() {
	gateways, err := hashring.New(hashring.Config{}, []hashring.Node{
		{ID: "127.0.0.1:7001", Weight: 26}, {ID: "127.0.0.1:7002", Weight: 126}, // weight = cores
	})
	if err != nil {
		log.Fatal(err)
	}
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "feed", Prefix: "user:", Percent: 100}}})
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(client.Config{Service: "feed", Region: "eu"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.SetRoutes(client.Routes{
		Gateways: map[string]*hashring.Ring{"eu": gateways},
		Rollout:  flags,
		Direct:   []string{"127.0.0.1:6379", "127.0.0.1:6389"},
	}); err != nil {
		log.Fatal(err)
	}
	show := func() {
		for _, key := range []string{"user:1", "user:2", "user:3", "user:4", "user:5", "user:6", "photo:1"} {
			t, err := c.Route(key)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%-8s %-7s %-6s %s retry %s\n", key, t.Path, t.Reason, t.Host, t.Next)
		}
	}
	show()
	if err := flags.SetConfig(rollout.Config{Rules: flags.Config().Rules, Kill: true}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("kill switch:")
	show()
	// Output:
	// user:1   gateway ramped 127.0.0.1:7002 retry 127.0.0.1:7001
	// user:2   gateway ramped 127.0.0.1:7002 retry 127.0.0.1:7001
	// user:3   gateway ramped 127.0.0.1:7002 retry 127.0.0.1:7001
	// user:4   gateway ramped 127.0.0.1:7002 retry 127.0.0.1:7001
	// user:5   gateway ramped 127.0.0.1:7001 retry 127.0.0.1:7002
	// user:6   gateway ramped 127.0.0.1:7002 retry 127.0.0.1:7001
	// photo:1  direct  no-rule 127.0.0.1:6379 retry 127.0.0.1:6379
	// kill switch:
	// user:1   direct  killed 127.0.0.1:6389 retry 127.0.0.1:6389
	// user:2   direct  killed 127.0.0.1:6379 retry 127.0.0.1:6379
	// user:3   direct  killed 127.0.0.1:6389 retry 127.0.0.1:6389
	// user:4   direct  killed 127.0.0.1:6379 retry 127.0.0.1:6379
	// user:5   direct  killed 127.0.0.1:6379 retry 127.0.0.1:6379
	// user:6   direct  killed 127.0.0.1:6379 retry 127.0.0.1:6379
	// photo:1  direct  killed 127.0.0.1:6379 retry 127.0.0.1:6379
}
