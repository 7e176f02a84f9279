package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigEmptyKeyPrefixRefused: an empty string among a tenant's
// key_prefixes is refused at start with an error naming the tenant and the
// field. Every key has the empty prefix, so it was taken and the tenant was
// confined to nothing: a template whose placeholder rendered empty
// (["{{.prefix}}"]) gave the tenant every key, other tenants' included, where
// an empty command name or Redis address is refused. No key_prefixes (or an
// empty list) is still every key, as documented.
func TestConfigEmptyKeyPrefixRefused(t *testing.T) {
	for _, prefixes := range [][]string{{""}, {"shop:", ""}} {
		_, err := Config{Tenants: []TenantConfig{{Name: "shop", KeyPrefixes: prefixes}}}.withDefaults()
		require.ErrorContains(t, err, `tenant "shop"`, "%q", prefixes)
		require.ErrorContains(t, err, "key_prefixes", "%q", prefixes)
	}
	c, err := decodeConfig([]byte(`{"tenants": [{"name": "shop", "key_prefixes": ["shop:", ""]}]}`))
	require.NoError(t, err)
	_, err = c.withDefaults()
	require.ErrorContains(t, err, "key_prefixes")

	for _, prefixes := range [][]string{nil, {}, {"shop:"}, {"shop:", "cart:"}} {
		_, err := Config{Tenants: []TenantConfig{{Name: "shop", KeyPrefixes: prefixes}}}.withDefaults()
		require.NoError(t, err, "%q", prefixes)
	}
}
