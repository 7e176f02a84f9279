package rollout_test

import (
	"fmt"

	"github.com/tierkit/tierkit/rollout"
)

func Example() {
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{
		{Service: "feed", Percent: 100, Regions: []string{"eu-1"}}, // whole service, one region
		{Service: "feed", Prefix: "user:vip:", Percent: 0},         // except VIP shards: not yet
		{Service: "ads", Prefix: "campaign:", Percent: 25},         // a quarter of campaign keys
	}})
	if err != nil {
		panic(err)
	}
	for _, q := range []rollout.Query{
		{Service: "feed", Key: "post:1", Region: "eu-1"},
		{Service: "feed", Key: "post:1", Region: "us-2"},
		{Service: "feed", Key: "user:vip:7", Region: "eu-1"},
		{Service: "search", Key: "q:go"},
	} {
		d := flags.Decide(q)
		fmt.Printf("%-6s %-11s %-5s use=%-5v %s\n", q.Service, q.Key, q.Region, d.Use, d.Reason)
	}
	// Output:
	// feed   post:1      eu-1  use=true  ramped
	// feed   post:1      us-2  use=false region-filtered
	// feed   user:vip:7  eu-1  use=false held-back
	// search q:go              use=false no-rule
}

// Ramping the percentage only adds keys; the kill switch removes all of them at once
// and turning it off restores the previous routing exactly.
func ExampleFlags_SetConfig() {
	cfg := rollout.Config{Rules: []rollout.Rule{{Service: "ads", Percent: 10}}}
	flags, _ := rollout.New(cfg)
	count := func() int {
		n := 0
		for i := range 10000 {
			if flags.Use(rollout.Query{Service: "ads", Key: fmt.Sprint("campaign:", i)}) {
				n++
			}
		}
		return n
	}
	fmt.Println("10%:", count())
	cfg.Rules[0].Percent = 50
	_ = flags.SetConfig(cfg)
	fmt.Println("50%:", count())
	cfg.Kill = true
	_ = flags.SetConfig(cfg)
	fmt.Println("killed:", count())
	cfg.Kill = false
	_ = flags.SetConfig(cfg)
	fmt.Println("restored:", count())
	// Output:
	// 10%: 948
	// 50%: 4923
	// killed: 0
	// restored: 4923
}
