package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigNotUTF8Refused: a configuration file with a byte that is not
// UTF-8 (a password saved in Latin-1) or a string escaping half a surrogate
// pair was decoded with U+FFFD in its place: a tenant's password or key
// prefix that no client can send, and AUTH failing with nothing saying why.
// Such a file is refused; a whole escaped pair is kept.
func TestConfigNotUTF8Refused(t *testing.T) {
	for js, want := range map[string]string{
		`{"tenants": [{"name": "app", "password": "caf` + "\xe9" + `"}]}`: "not valid UTF-8",
		`{"tenants": [{"name": "app", "password": "p\ud800"}]}`:           "half a surrogate pair",
		`{"tenants": [{"name": "app", "key_prefixes": ["x\udc00:"]}]}`:    "half a surrogate pair",
	} {
		_, err := decodeConfig([]byte(js))
		assert.ErrorContains(t, err, want, js)
	}
	c, err := decodeConfig([]byte(`{"tenants": [{"name": "app", "password": "p\ud83d\ude00"}]}`))
	require.NoError(t, err)
	assert.Equal(t, "p\U0001F600", c.Tenants[0].Password)
}
