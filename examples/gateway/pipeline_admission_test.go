package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
)

// A pipeline run holds the admission of every command it has admitted
// until the run is answered. A plain run (GETs, SETs, MGETs) admits all its
// commands before it sends any, so the commands past the admission limit
// waited in shed's queue for capacity that only the run itself held: on an
// idle gateway with a limit of 8, a pipeline of 32 GETs had 24 of them shed,
// each after the whole queue deadline. INCRs, which run one by one, passed.
func TestPlainRunLongerThanAdmissionLimit(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(20 * time.Millisecond)})
	ctx := context.Background()
	c := client(t, in, nil)
	for _, mget := range []bool{false, true} {
		cmds, _ := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := range 32 {
				k := fmt.Sprint("adm", i)
				switch {
				case mget:
					p.MGet(ctx, k, k+"b", k+"c")
				case i%2 == 0:
					p.Get(ctx, k)
				default:
					p.Set(ctx, k, "v", 0)
				}
			}
			return nil
		})
		failed := 0
		for _, cmd := range cmds {
			if err := cmd.Err(); err != nil && err != redis.Nil {
				failed++
			}
		}
		assert.Zero(t, failed, "commands of a pipeline (MGET %v) refused by admission on an idle gateway", mget)
	}
}
