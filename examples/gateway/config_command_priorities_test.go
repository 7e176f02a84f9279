package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// command_priorities is checked at load as the commands list is: an unknown
// name, a command shed never admits, a priority other than 0 or 1 and a name
// given twice in two cases are refused with an error naming them; names
// are upper-cased, in a map of the tenant's own.
func TestConfigCommandPriorities(t *testing.T) {
	for _, tc := range []struct {
		json string
		err  string // "" if accepted
	}{
		{`{"tenants": [{"name": "a", "command_priorities": {"get": 1, "KVSCAN": 0, "Watch": 1}}]}`, ""},
		{`{"tenants": [{"name": "a", "priority": 1, "command_priorities": {}}]}`, ""},
		{`{"tenants": [{"name": "a", "command_priorities": {"GETT": 1}}]}`, `tenant "a": command_priorities: unknown command "GETT"`},
		{`{"tenants": [{"name": "a", "command_priorities": {"GET": 2}}]}`, `tenant "a": command_priorities: GET: priority 2, want 0 or 1`},
		{`{"tenants": [{"name": "a", "command_priorities": {"set": -1}}]}`, `command_priorities: SET: priority -1, want 0 or 1`},
		{`{"tenants": [{"name": "a", "command_priorities": {"ping": 1}}]}`, `command_priorities: PING is not admitted by shed`},
		{`{"tenants": [{"name": "a", "command_priorities": {"EXEC": 1}}]}`, `command_priorities: EXEC is not admitted by shed`},
		{`{"tenants": [{"name": "a", "command_priorities": {"get": 1, "GET": 0}}]}`, `"GET" appears twice`}, // the decoder's check
		{`{"tenants": [{"name": "a", "command_priorities": {"GET": "high"}}]}`, `cannot unmarshal`},
	} {
		t.Run(tc.json, func(t *testing.T) {
			err := buildFromJSON(t, []byte(tc.json))
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// The names are stored upper-case, in a new map: the caller's is left as
// it was, and the tenant's table holds each command's priority.
func TestConfigCommandPrioritiesUpperCased(t *testing.T) {
	mine := map[string]int{"get": 1, "KVSCAN": 0}
	c, err := Config{Tenants: []TenantConfig{{Name: "a", Priority: 1, CommandPriorities: mine}}}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, map[string]int{"GET": 1, "KVSCAN": 0}, c.Tenants[0].CommandPriorities)
	require.Equal(t, map[string]int{"get": 1, "KVSCAN": 0}, mine, "the caller's map")
	_, err = Config{Tenants: []TenantConfig{{Name: "a", CommandPriorities: map[string]int{"get": 1, "GET": 0}}}}.withDefaults()
	require.ErrorContains(t, err, `tenant "a": command_priorities: GET given twice`)
	ten := newTenant(c.Tenants[0])
	for name, want := range map[string]uint8{"GET": 1, "KVSCAN": 0, "SET": 1, "WATCH": 1} {
		require.Equal(t, want, ten.prio[commands[name].idx], name)
	}
}
