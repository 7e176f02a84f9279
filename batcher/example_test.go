package batcher_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tierkit/tierkit/batcher"
)

// shardKey is the group of the examples: requests of one tenant to one shard go
// to the backend together.
type shardKey struct {
	Tenant string
	Shard  int
}

func Example() {
	// The backend answers many keys in one call; here it upper-cases them.
	backend := func(_ context.Context, g shardKey, keys []string, out []batcher.Result[string]) error {
		fmt.Printf("backend call: tenant %s, shard %d, %d keys\n", g.Tenant, g.Shard, len(keys))
		for i, k := range keys {
			out[i].Resp = strings.ToUpper(k)
		}
		return nil
	}
	b, err := batcher.New(batcher.Config[string]{MaxItems: 3, Linger: time.Hour}, backend)
	if err != nil {
		panic(err)
	}
	defer b.Close()

	keys := []string{"apple", "kiwi", "fig"}
	got := make([]string, len(keys))
	var wg sync.WaitGroup
	for i, k := range keys { // three concurrent callers
		wg.Go(func() {
			got[i], _ = b.Do(context.Background(), shardKey{"ads", 4}, k)
		})
	}
	wg.Wait()
	fmt.Println(got)
	s := b.Stats()
	fmt.Printf("%d items, %d batch, fill %.0f%%\n", s.Items, s.Batches, 100*s.MeanFill)
	// Output:
	// backend call: tenant ads, shard 4, 3 keys
	// [APPLE KIWI FIG]
	// 3 items, 1 batch, fill 100%
}

// A slow backend fills the in-flight cap; new items are rejected at once instead
// of queueing.
func ExampleBatcher_Do_overloaded() {
	started, release := make(chan struct{}), make(chan struct{})
	b, err := batcher.New(batcher.Config[int]{MaxItems: 1, MaxInFlight: 1},
		func(_ context.Context, _ string, reqs []int, out []batcher.Result[int]) error {
			close(started)
			<-release // a backend that has become slow
			for i, r := range reqs {
				out[i].Resp = r * 10
			}
			return nil
		})
	if err != nil {
		panic(err)
	}
	defer b.Close()

	done := make(chan int)
	go func() {
		v, _ := b.Do(context.Background(), "shard-1", 4)
		done <- v
	}()
	<-started // one batch is in the backend: the cap is reached

	_, err = b.Do(context.Background(), "shard-1", 5)
	fmt.Println(errors.Is(err, batcher.ErrOverloaded), b.Stats().Rejected)

	close(release)
	fmt.Println(<-done)
	// Output:
	// true 1
	// 40
}

// Identical items of one batch are sent once and share the result.
func ExampleConfig_dedup() {
	var sent []string
	b, err := batcher.New(batcher.Config[string]{
		MaxItems: 4, Linger: time.Hour,
		Key: func(k string) (string, bool) { return k, true },
	}, func(_ context.Context, _ int, keys []string, out []batcher.Result[int]) error {
		sent = append(sent, keys...)
		for i, k := range keys {
			out[i].Resp = len(k)
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	defer b.Close()
	var wg sync.WaitGroup
	for _, k := range []string{"hot", "hot", "hot", "cold"} {
		wg.Go(func() { _, _ = b.Do(context.Background(), 0, k) })
	}
	wg.Wait()
	s := b.Stats()
	fmt.Printf("%d items, %d sent to the backend, %d de-duplicated\n", s.Items, len(sent), s.Deduped)
	// Output:
	// 4 items, 2 sent to the backend, 2 de-duplicated
}

// A command over two shards: Start adds the first shard's key to its batch and
// returns at once, Do sends the second, then Wait collects the first; both
// travel at the same time, without a goroutine per shard. Here shard 1's
// backend call waits until shard 2's has started, which two Do calls in a
// row would never let happen (it gives up after 10 s and says so).
func ExampleBatcher_Start() {
	shard2 := make(chan struct{})
	together := false
	backend := func(_ context.Context, g shardKey, keys []string, out []batcher.Result[string]) error {
		switch g.Shard {
		case 1:
			select {
			case <-shard2:
				together = true
			case <-time.After(10 * time.Second):
			}
		case 2:
			close(shard2)
		}
		for i, k := range keys {
			out[i].Resp = fmt.Sprintf("%s@%d", k, g.Shard)
		}
		return nil
	}
	b, err := batcher.New(batcher.Config[string]{MaxItems: 8, Linger: time.Millisecond, Policy: batcher.FlushNatural}, backend)
	if err != nil {
		panic(err)
	}
	defer b.Close()

	ctx := context.Background()
	p := b.Start(ctx, shardKey{"ads", 1}, "apple")
	second, err := b.Do(ctx, shardKey{"ads", 2}, "kiwi")
	if err != nil {
		panic(err)
	}
	first, err := p.Wait()
	if err != nil {
		panic(err)
	}
	fmt.Println(first, second, "in flight together:", together)
	// Output:
	// apple@1 kiwi@2 in flight together: true
}
