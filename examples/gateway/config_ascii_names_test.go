package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigCommandNamesASCIICase: a tenant's commands and
// command_priorities name commands as clients send them, whose case the
// gateway folds for ASCII letters only, as Redis does (asciiUpper). The
// configuration folded them with strings.ToUpper, which also maps 'ſ' to
// 'S' and 'ı' to 'I': "ſet" was taken as SET, a name every client that
// sends it gets "unknown command" for, where the README promises that a
// name the gateway does not have is refused.
func TestConfigCommandNamesASCIICase(t *testing.T) {
	for _, name := range []string{"ſet", "ıncr", "KVſCAN"} {
		t.Run(name, func(t *testing.T) {
			_, err := Config{Tenants: []TenantConfig{{Name: "a", Commands: []string{name}}}}.withDefaults()
			require.ErrorContains(t, err, "unknown command")
			_, err = Config{Tenants: []TenantConfig{{Name: "a", CommandPriorities: map[string]int{name: 1}}}}.withDefaults()
			require.ErrorContains(t, err, "unknown command")
		})
	}
	// The gateway refuses the name at run time: it is no command of its.
	in := startGateway(t, Config{HTTPAddr: "-"})
	err := client(t, in, nil).Do(context.Background(), "ſet", "k", "v").Err()
	require.ErrorContains(t, err, "unknown command")
}
