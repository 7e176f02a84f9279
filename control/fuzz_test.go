package control_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// FuzzChangeJSON feeds arbitrary bytes through the JSON change path (decode,
// validate, clamp, apply, maybe roll back). Invariants: no panic; every knob
// stays within its bounds and agrees with its component; a failed request
// changes nothing; the audit log chains.
func FuzzChangeJSON(f *testing.F) {
	for _, s := range []string{
		`{"who":"a","changes":[{"knob":"n","value":50}]}`,
		`{"changes":[{"knob":"n","value":1e300},{"knob":"f","value":-3}]}`,
		`{"changes":[{"knob":"d","value":"-5h"},{"knob":"s","value":"fifo"}],"strict":true}`,
		`{"changes":[{"knob":"b","value":true},{"knob":"b","value":false}]}`,
		`{"dry_run":true,"changes":[{"knob":"f","value":0.3}]}`,
		`{"changes":[{"knob":"s","value":"off"}]}`,
		`{"changes":[]}`, `[]`, `{"changes":[{"knob":"n","value":{}}]}`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, op uint8) {
		fx := newFixture(t, control.Config{AuditSize: 4, Rate: 1000, Burst: 2})
		fx.fail = []string{"", "n", "s", "b"}[op%4]
		for i := range 3 {
			now := t0.Add(time.Duration(i) * time.Millisecond)
			before := fx.reg.Knobs()
			req, err := control.DecodeRequest(data)
			if err != nil {
				return
			}
			if op&8 != 0 && i == 2 {
				_, err = fx.reg.RollbackAt(now, "fuzz", "")
			} else {
				_, err = fx.reg.ApplyAt(now, req)
			}
			if err != nil {
				require.Equal(t, before, fx.reg.Knobs(), "a failed request changes nothing")
			}
			checkBounds(t, fx)
			checkAudit(t, fx.reg)
		}
	})
}

func checkBounds(t *testing.T, fx *fixture) {
	t.Helper()
	for _, k := range fx.reg.Knobs() {
		if k.Min != nil {
			require.False(t, k.Value.Float() < k.Min.Float() || k.Value.Float() > k.Max.Float() ||
				k.Value.Duration() < k.Min.Duration() || k.Value.Duration() > k.Max.Duration(),
				"%s=%v within [%v, %v]", k.Name, k.Value, *k.Min, *k.Max)
		}
	}
	n, _ := fx.reg.Get("n")
	f, _ := fx.reg.Get("f")
	d, _ := fx.reg.Get("d")
	b, _ := fx.reg.Get("b")
	s, _ := fx.reg.Get("s")
	require.Equal(t, []any{n.Int(), f.Float(), d.Duration(), b.Bool(), s.String()},
		[]any{fx.n, fx.f, fx.d, fx.b, fx.s}, "components agree with the registry")
}
