package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigBackendRedisNeedsKind: Redis settings (shard addresses,
// replicas, a data-path client) under a backend whose kind is memkv, said or
// left to the default, are refused with an error that names the kind. The
// gateway started on the embedded memkv store instead, ignoring the
// addresses: a file that forgot "kind": "redis" served and acknowledged
// writes from process memory, lost at the next restart.
func TestConfigBackendRedisNeedsKind(t *testing.T) {
	for _, js := range []string{
		`{"backend": {"redis": ["127.0.0.1:7001"]}}`,
		`{"backend": {"kind": "memkv", "redis": ["127.0.0.1:7001", "127.0.0.1:7002"]}}`,
		`{"backend": {"replicas": [["127.0.0.1:7101"]]}}`,
		`{"backend": {"client": "go-redis"}}`,
	} {
		t.Run(js, func(t *testing.T) {
			c, err := decodeConfig([]byte(js))
			require.NoError(t, err)
			_, err = c.withDefaults()
			require.ErrorContains(t, err, `"kind": "redis"`)
		})
	}
	// The error names the settings given, each of them, password_env too
	// (it listed five fields whatever was set, and not password_env).
	for js, want := range map[string]string{
		`{"backend": {"password_env": "SHARD_PASSWORD"}}`:                  `backend password_env set on the memkv backend`,
		`{"backend": {"client": "go-redis", "username": "u"}}`:             `backend client (-redis-client), username set on the memkv backend`,
		`{"backend": {"redis": ["127.0.0.1:7001"], "password": "secret"}}`: `backend redis, password set on the memkv backend`,
	} {
		c, err := decodeConfig([]byte(js))
		require.NoError(t, err)
		_, err = c.withDefaults()
		require.ErrorContains(t, err, want, js)
	}
	// The same settings with the kind said are accepted.
	c, err := decodeConfig([]byte(`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001"], "replicas": [["127.0.0.1:7101"]], "client": "go-redis"}}`))
	require.NoError(t, err)
	c, err = c.withDefaults()
	require.NoError(t, err)
	require.Equal(t, "redis", c.Backend.Kind)
	_, err = c.withDefaults() // main checks the settings, then start again
	require.NoError(t, err)
}

// TestConfigShardsOnRedisRefused: a shard count (backend.shards, -shards)
// with the Redis backend, whose shards are its addresses, was ignored,
// where Redis settings on memkv are refused; it is refused too.
func TestConfigShardsOnRedisRefused(t *testing.T) {
	c, err := decodeConfig([]byte(`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001"], "shards": 8}}`))
	require.NoError(t, err)
	_, err = c.withDefaults()
	require.ErrorContains(t, err, "backend shards (-shards) 8 set on the redis backend")
}

// TestConfigACLCommandNames: a tenant's command list naming a command the
// gateway does not have (a misspelling, or a Redis command it does not
// implement) is refused at start with an error naming the tenant and the
// name, as an unknown field is. It was taken: the tenant then got NOPERM at
// run time for the command meant ("EXIST" for EXISTS), with nothing saying
// why. Any command of the gateway, in any case, is accepted, the connection
// and introspection commands included (naming them changes nothing).
func TestConfigACLCommandNames(t *testing.T) {
	for _, name := range []string{"EXIST", "HGET", "", "get "} {
		t.Run(name, func(t *testing.T) {
			_, err := Config{Tenants: []TenantConfig{{Name: "ro", Commands: []string{"GET", name}}}}.withDefaults()
			require.ErrorContains(t, err, `tenant "ro"`)
			require.ErrorContains(t, err, "unknown command")
		})
	}
	c, err := Config{Tenants: []TenantConfig{{Name: "ro", Commands: []string{"get", "Exists", "PING", "INFO", "watch", "kvscan"}}}}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, []string{"GET", "EXISTS", "PING", "INFO", "WATCH", "KVSCAN"}, c.Tenants[0].Commands)
}

// TestConfigRedisEmptyAddress: an empty Redis address (a trailing comma in
// -redis a,b, or "" in the file) is refused at start. It was taken as a
// shard of its own, whose clients dialled their default address instead
// (go-redis: its default local port, which may be some other Redis): a share of
// the keys went to a server the configuration never named, or failed.
func TestConfigRedisEmptyAddress(t *testing.T) {
	for _, js := range []string{
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001", ""]}}`,
		`{"backend": {"kind": "redis", "redis": [" "]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001"], "replicas": [[""]]}}`,
	} {
		t.Run(js, func(t *testing.T) {
			c, err := decodeConfig([]byte(js))
			require.NoError(t, err)
			_, err = c.withDefaults()
			require.ErrorContains(t, err, "empty address")
		})
	}
}
