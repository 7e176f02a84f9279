package main

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeConfiguration returns the README's "Configuration" section and the
// JSON example it opens with.
func readmeConfiguration(t *testing.T) (sec, example string) {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(b), "\n## Configuration (`-config file.json`)\n")
	require.True(t, ok, "README.md has no Configuration section")
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, example, ok = strings.Cut(sec, "```json\n")
	require.True(t, ok, "the Configuration section has no JSON example")
	example, _, _ = strings.Cut(example, "```")
	return sec, example
}

// TestREADMEConfigExampleIsDefaults: the README's example configuration
// decodes, and "the values shown are the defaults, but for tenants and
// backend": with those two left out, it fills in as {} does.
func TestREADMEConfigExampleIsDefaults(t *testing.T) {
	_, example := readmeConfiguration(t)
	shown, err := decodeConfig([]byte(example))
	require.NoError(t, err, "the README's example decodes")
	_, err = shown.withDefaults()
	require.NoError(t, err, "the README's example is accepted")

	shown.Tenants, shown.Backend = nil, BackendConfig{}
	shown.ControlHosts = nil // [] and absent are one default
	shown, err = shown.withDefaults()
	require.NoError(t, err)
	def, err := Config{}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, def, shown, "the example's values are the defaults")
}

// TestREADMEConfigNamesEveryField: every field the configuration file
// accepts is named in the README's Configuration section.
func TestREADMEConfigNamesEveryField(t *testing.T) {
	sec, _ := readmeConfiguration(t)
	for _, typ := range []reflect.Type{reflect.TypeFor[Config](), reflect.TypeFor[TenantConfig](),
		reflect.TypeFor[BackendConfig](), reflect.TypeFor[Limits]()} {
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			assert.True(t, strings.Contains(sec, `"`+name+`"`) || strings.Contains(sec, "`"+name+"`"),
				"%s.%s (%q) is not in the README's Configuration section", typ.Name(), f.Name, name)
		}
	}
}
