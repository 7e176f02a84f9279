package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestConfigDurationErrorsNameField: a duration the file gets wrong (not a
// duration, or not a string) is refused with an error naming its field, as
// a wrong type of any other field is; the error named only the value ("time:
// invalid duration \"5 min\"", or for a number not even that), leaving the
// reader to guess which of the file's nine durations it was. And null is
// the default, as for every other field (encoding/json's convention): it
// was refused with `time: invalid duration ""`.
func TestConfigDurationErrorsNameField(t *testing.T) {
	for _, tc := range []struct{ json, field, want string }{
		{`{"linger": "soon"}`, "Config.linger", `invalid duration "soon"`},
		{`{"request_timeout": 5}`, "Config.request_timeout", "want a string"},
		{`{"limits": {"idle_timeout": "5 min"}}`, "limits.idle_timeout", `"5 min"`},
		{`{"limits": {"write_timeout": true}}`, "limits.write_timeout", "want a string"},
	} {
		t.Run(tc.json, func(t *testing.T) {
			_, err := decodeConfig([]byte(tc.json))
			require.ErrorContains(t, err, tc.field)
			require.ErrorContains(t, err, tc.want)
		})
	}
	c, err := decodeConfig([]byte(`{"linger": null, "limits": {"idle_timeout": null}}`))
	require.NoError(t, err)
	c, err = c.withDefaults()
	require.NoError(t, err)
	require.Equal(t, Duration(200*time.Microsecond), c.Linger)
	require.Equal(t, Duration(5*time.Minute), c.Limits.IdleTimeout)
}
