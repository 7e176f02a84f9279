package client

import (
	"errors"
	"fmt"
	"time"
)

// Defaults applied to zero Config fields.
const (
	DefaultPoolSize    = 4
	DefaultDialTimeout = 250 * time.Millisecond
	DefaultEjectFor    = time.Second
	// MaxPoolSize bounds Config.PoolSize: go-redis sizes a pool's structures
	// by it when the pool opens (and panics past MaxInt32).
	MaxPoolSize = 1 << 16
)

// ErrInvalidConfig is wrapped by the errors of New and Client.SetConfig for a
// Config that contradicts itself. Fix the configuration; SetConfig keeps the
// previous one.
var ErrInvalidConfig = errors.New("invalid config")

// Config holds a client's identity and its connection tunables. Zero fields
// take the documented defaults.
type Config struct {
	// Service is the client's service (use case): the rollout rules of this service
	// decide gateway or direct. Required.
	Service string
	// Region is the client's home region: rollout's region filter reads it, and the
	// failover table maps it to the region that serves it. Required.
	Region string
	// Unit identifies the client for failover.Table.Pick (a host or process id), so a
	// client stays on one side of a spill share. Empty means the key: a spill share
	// then moves that share of keys instead of that share of clients, drawn by
	// a mix of the key's ring hash (its {hash tag} if any), so the keys moved
	// spread over the backup region's hosts by weight (Table.Pick by the key
	// itself would read the bits that pick its ring slot, and send them all to
	// the hosts owning the backup ring's low slots).
	Unit string
	// RolloutUnit is what the rollout percentage hashes (rollout.Query.Unit). Empty
	// means the key, so a key stays on one path as the percentage rises.
	RolloutUnit string
	// Username and Password authenticate to the gateway (its tenant); empty for an
	// open gateway. Direct connections to backend shards do not send them.
	Username, Password string
	// PoolSize is the number of connections kept per host: the small sticky pool.
	// Callers beyond it wait for a free connection within their context, at most
	// 6 s (go-redis's pool timeout), then fail with redis.ErrPoolTimeout.
	// Default DefaultPoolSize (4); at most MaxPoolSize.
	PoolSize int
	// DialTimeout bounds a connection attempt. Default DefaultDialTimeout (250 ms).
	DialTimeout time.Duration
	// EjectFor is how long a host that failed at the connection level is skipped by
	// new requests (they go to the next host of the ring). Default DefaultEjectFor (1 s).
	EjectFor time.Duration
}

func (c Config) validate() error {
	switch {
	case c.Service == "":
		return fmt.Errorf("client: %w: Service is required", ErrInvalidConfig)
	case c.Region == "":
		return fmt.Errorf("client: %w: Region is required", ErrInvalidConfig)
	case c.PoolSize < 0, c.DialTimeout < 0, c.EjectFor < 0:
		return fmt.Errorf("client: %w: PoolSize, DialTimeout and EjectFor must not be negative", ErrInvalidConfig)
	case c.PoolSize > MaxPoolSize:
		return fmt.Errorf("client: %w: PoolSize %d is over MaxPoolSize (%d)", ErrInvalidConfig, c.PoolSize, MaxPoolSize)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.PoolSize == 0 {
		c.PoolSize = DefaultPoolSize
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.EjectFor == 0 {
		c.EjectFor = DefaultEjectFor
	}
	return c
}
