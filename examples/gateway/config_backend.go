package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"time"
)

// The backend section's defaults and checks (BackendConfig, declared with
// the rest of the file's schema in config.go): its kind, the Redis client
// and addresses, and the password read from the environment.

// fillDefaults fills the backend's zero fields and checks that its settings
// fit its kind.
func (b *BackendConfig) fillDefaults() error {
	b.Kind = or(b.Kind, "memkv")
	if b.Kind == "redis" && b.Shards != 0 {
		// The Redis backend's shards are its addresses: a count here was
		// ignored, where the reverse (Redis settings on memkv) is refused.
		return fmt.Errorf("gateway: backend shards (-shards) %d set on the redis backend: its shards are the redis addresses", b.Shards)
	}
	b.Pool = or(b.Pool, 8)
	switch b.Kind {
	case "memkv":
		b.Shards = or(b.Shards, 4)
		// Redis settings here are a file that forgot the kind: ignored, the
		// gateway would serve from process memory what the file meant for
		// Redis.
		if set := b.redisSettings(); len(set) > 0 {
			return fmt.Errorf(`gateway: backend %s set on the memkv backend: add "kind": "redis" (or use -redis)`, strings.Join(set, ", "))
		}
		return nil
	case "redis":
		return b.fillRedisDefaults()
	default:
		return fmt.Errorf("gateway: unknown backend %q", b.Kind)
	}
}

// redisSettings names the Redis-only settings b has, so that the error
// refusing them on memkv names the ones the file (or a flag) gave: it listed
// five fields whatever was set, password_env not among them, and a
// -redis-client on memkv was refused as a "client" setting.
func (b *BackendConfig) redisSettings() []string {
	var set []string
	for _, f := range []struct {
		name string
		on   bool
	}{
		{"redis", len(b.Redis) > 0}, {"replicas", len(b.Replicas) > 0},
		{"client (-redis-client)", b.Client != ""}, {"username", b.Username != ""},
		{"password", b.Password != ""}, {"password_env", b.PasswordEnv != ""},
		{"dial_timeout", b.DialTimeout != 0},
	} {
		if f.on {
			set = append(set, f.name)
		}
	}
	return set
}

// fillRedisDefaults fills the Redis backend's client and checks its
// addresses.
func (b *BackendConfig) fillRedisDefaults() error {
	b.Client = or(b.Client, "rueidis")
	if b.Client != "go-redis" && b.Client != "rueidis" {
		return fmt.Errorf("gateway: unknown redis client %q (want \"go-redis\" or \"rueidis\")", b.Client)
	}
	if len(b.Redis) == 0 {
		return errors.New("gateway: backend redis needs at least one address")
	}
	if b.DialTimeout < 0 {
		return fmt.Errorf("gateway: backend dial_timeout %v is negative", time.Duration(b.DialTimeout))
	}
	b.DialTimeout = or(b.DialTimeout, Duration(defaultDialTimeout))
	if err := b.resolvePassword(); err != nil {
		return err
	}
	if len(b.Replicas) > len(b.Redis) {
		return errors.New("gateway: more replica lists than shards")
	}
	// An empty address (a trailing comma in -redis) is no shard: its
	// clients would dial their default address (go-redis: the default
	// port on this host), a server the configuration never named. One
	// with a space around it (-redis "a, b") is dialled as it is, and
	// fails every call.
	//
	// An address named twice (as written) is refused too: a replica that is
	// another shard's primary answered that shard's keys for this one's
	// reads (null for keys just written), one that is its own primary or is
	// listed twice reads the primary or one replica for two, and a primary
	// named for two shards holds the keys of both while the server meant
	// holds none.
	//
	// So is one that is not host:port with a port to dial (-redis
	// 127.0.0.1, the port forgotten; a redis:// URL): the gateway served,
	// and every call to that shard failed to dial.
	seen := map[string]bool{}
	for _, a := range append(slices.Clone(b.Redis), slices.Concat(b.Replicas...)...) {
		switch {
		case strings.TrimSpace(a) == "":
			return errors.New("gateway: backend redis or replicas: an empty address")
		case strings.TrimSpace(a) != a:
			return fmt.Errorf("gateway: backend redis or replicas: address %q has a space around it", a)
		case !dialable(a):
			return fmt.Errorf("gateway: backend redis or replicas: address %q: want host:port", a)
		case seen[a]:
			return fmt.Errorf("gateway: backend redis or replicas: address %q named twice (a shard's primary or replica is one server)", a)
		}
		seen[a] = true
	}
	return nil
}

// dialable reports whether addr is host:port with a port a TCP dial takes
// (a number from 1 to 65535, or a service name the system knows).
func dialable(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return false
	}
	p, err := net.LookupPort("tcp", port)
	return err == nil && p > 0
}

// resolvePassword reads the password from the environment variable that
// PasswordEnv names, if it names one, and checks that a username comes with a
// password. Its errors name the variable, never the password.
func (b *BackendConfig) resolvePassword() error {
	if b.PasswordEnv != "" {
		if b.Password != "" {
			return errors.New("gateway: backend password and password_env: set one")
		}
		v, ok := os.LookupEnv(b.PasswordEnv)
		if !ok || v == "" {
			return fmt.Errorf("gateway: backend password_env: environment variable %q is not set or empty", b.PasswordEnv)
		}
		b.Password, b.PasswordEnv = v, ""
	}
	if b.Username != "" && b.Password == "" {
		// AUTH needs a password: the username alone would log in nobody.
		return errors.New("gateway: backend username needs a password (password or password_env)")
	}
	return nil
}
