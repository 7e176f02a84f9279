package control_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestEncodeErrorsAreTyped: a float Value JSON cannot hold fails with the
// error encoding/json gives for such a float64 (*json.UnsupportedValueError),
// and a kind name Kind does not know with a *control.KindError naming it,
// rather than with untyped errors a caller could only match by their text.
func TestEncodeErrorsAreTyped(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := json.Marshal(control.Float(f))
		var uve *json.UnsupportedValueError
		require.ErrorAs(t, err, &uve, "Float(%v)", f)
		_, direct := control.Float(f).MarshalJSON()
		require.ErrorAs(t, direct, &uve, "Float(%v).MarshalJSON", f)
	}

	var k control.Kind
	err := k.UnmarshalText([]byte("flaot"))
	var ke *control.KindError
	require.ErrorAs(t, err, &ke)
	require.Equal(t, "flaot", ke.Text)
	require.Contains(t, err.Error(), `"flaot"`)
	require.Equal(t, control.Kind(0), k, "an unknown name leaves the Kind as it was")

	var in control.Info
	err = json.Unmarshal([]byte(`{"name":"a","kind":"flaot","value":1,"min":0,"max":2}`), &in)
	require.ErrorAs(t, err, &ke, "Info's decoding passes the KindError on")
}
