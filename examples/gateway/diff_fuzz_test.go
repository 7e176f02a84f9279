package main

// FuzzDifferentialRedis: the differential test (diff_test.go) of one seed,
// its length and the gateway it runs on chosen by the fuzzer.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"testing"
	"time"

	"github.com/tierkit/tierkit/examples/internal/redisproc"
)

// The gateways an input of FuzzDifferentialRedis may run on (its variant
// byte modulo diffVariants): on memkv or on two Redis shards, without or
// with the caching tier.
const (
	diffMemkv = iota
	diffMemkvCache
	diffShards
	diffShardsCache
	diffVariants
)

// diffGateways starts the gateway of each variant once, when an input first
// needs it (a fuzz worker runs many inputs, most variants on each), with its
// own Redis shards for those on Redis; close stops them all.
type diffGateways struct {
	gws    [diffVariants]*instance
	shards []*redisproc.Proc
}

// get returns variant v's gateway and, on Redis shards, its shard of a key
// (runDiffSeed's shardOf; nil on memkv).
func (d *diffGateways) get(v int) (*instance, func(string) int, error) {
	if d.gws[v] == nil {
		cfg := Config{Addr: "127.0.0.1:0", HTTPAddr: "-"}
		if v == diffMemkvCache || v == diffShardsCache {
			cfg.CacheCapacity = 1000
		}
		if v == diffShards || v == diffShardsCache {
			addrs, err := d.startShards(2)
			if err != nil {
				return nil, nil, err
			}
			cfg.Backend = BackendConfig{Kind: "redis", Redis: addrs, Pool: 4}
		}
		in, err := start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			return nil, nil, fmt.Errorf("variant %d: %w", v, err)
		}
		d.gws[v] = in
	}
	if v == diffShards || v == diffShardsCache {
		return d.gws[v], d.gws[v].gw.shard, nil
	}
	return d.gws[v], nil, nil
}

// startShards starts n redis-servers for a gateway's shards.
func (d *diffGateways) startShards(n int) ([]string, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server is needed: run scripts/setup.sh: %w", err)
	}
	var addrs []string
	for range n {
		p, err := redisproc.StartFree(bin, 5, "", "", redisproc.Ping)
		if err != nil {
			return nil, err
		}
		d.shards = append(d.shards, p)
		addrs = append(addrs, p.Addr)
	}
	return addrs, nil
}

// close shuts the gateways down, then stops their shards.
func (d *diffGateways) close() {
	for _, in := range d.gws {
		if in != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = in.Shutdown(ctx)
			cancel()
		}
	}
	for _, p := range d.shards {
		p.Stop()
	}
}

// FuzzDifferentialRedis runs the sequence of one seed, as
// TestDifferentialRedis and TestDifferentialRedisShards do for the first
// ones, on the gateway of variant: seeds that are 3 modulo 4 make no
// transactions (diff_test.go's runDiffSeed). Each worker starts a gateway
// once per variant it runs; the reference Redis is shared (each seed has
// keys of its own, deleted first).
func FuzzDifferentialRedis(f *testing.F) {
	rs := startRedis(f)
	gws := &diffGateways{}
	f.Cleanup(gws.close)
	// The seeds run as plain tests (under -race in CI): few, and short.
	f.Add(uint64(1000), uint8(100), uint8(diffMemkv))
	f.Add(uint64(1001), uint8(60), uint8(diffMemkvCache))
	f.Add(uint64(1002), uint8(60), uint8(diffShards))
	f.Add(uint64(1003), uint8(40), uint8(diffShards))
	f.Add(uint64(1004), uint8(60), uint8(diffShardsCache))
	f.Fuzz(func(t *testing.T, seed uint64, steps, variant uint8) {
		in, shardOf, err := gws.get(int(variant % diffVariants))
		if err != nil {
			t.Fatal(err)
		}
		if d := runDiffSeed(rs.addr, in.Addr(), seed, int(steps), shardOf); d != "" {
			t.Fatalf("variant %d: %s", variant%diffVariants, d)
		}
	})
}
