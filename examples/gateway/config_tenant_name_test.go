package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigTenantNames: a tenant name is a word clients and tools read back
// in INFO (`tenant_<name>:requests=...,...`) and in the quota knobs'
// names (`quota.<name>.rate`): one with a colon or a comma breaks the INFO
// line for every parser that splits on them, and one with a space, a quote
// or a control character was refused by the control registry with an error
// about a knob, not the tenant. Such names are refused at start with an error
// naming the tenant; ordinary names (dots, dashes, underscores, @, /) pass.
func TestConfigTenantNames(t *testing.T) {
	for _, name := range []string{"shop:eu", "a,b", "with space", "tab\there", `quo"te`, "new\nline", " lead"} {
		t.Run(name, func(t *testing.T) {
			_, err := Config{Tenants: []TenantConfig{{Name: name}}}.withDefaults()
			require.Error(t, err)
			require.ErrorContains(t, err, "tenant")
			require.ErrorContains(t, err, "name")
		})
	}
	for _, name := range []string{"default", "shop.eu", "team-a_b", "svc@region/1"} {
		_, err := Config{Tenants: []TenantConfig{{Name: name}}}.withDefaults()
		require.NoError(t, err, name)
	}
}
