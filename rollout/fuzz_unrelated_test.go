package rollout_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// fuzzRules parses one rule per line, "service|prefix|percent|region,region|salt"
// (percent in hundredths, fields may be missing), at most 40 lines. Prefixes and
// keys are arbitrary bytes: unicode, invalid UTF-8, empty.
func fuzzRules(spec string) []rollout.Rule {
	var rules []rollout.Rule
	for line := range strings.SplitSeq(spec, "\n") {
		if len(rules) == 40 {
			break
		}
		f := append(strings.Split(line, "|"), "", "", "", "", "")
		bp, _ := strconv.ParseUint(f[2], 10, 16)
		r := rollout.Rule{Service: f[0], Prefix: f[1], Percent: float64(bp%10001) / 100, Salt: f[4]}
		for _, reg := range strings.Split(f[3], ",") {
			if reg != "" {
				r.Regions = append(r.Regions, reg)
			}
		}
		rules = append(rules, r)
	}
	return rules
}

// validRules drops the rules Config.validate would refuse: an empty service, or a
// (service, prefix) pair seen before.
func validRules(rules []rollout.Rule) []rollout.Rule {
	var out []rollout.Rule
	seen := map[[2]string]bool{}
	for _, r := range rules {
		k := [2]string{r.Service, r.Prefix}
		if r.Service != "" && !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// FuzzDecideUnrelatedRule checks the promise behind "the LONGEST prefix wins,
// whatever the order of the rules": adding a rule that cannot win a key (another
// service, a prefix the key does not start with, or a shorter prefix than the
// winner's), anywhere in Config.Rules, does not change the key's decision; only
// Decision.Rule shifts with the insertion. Both configs agree with the naive
// reference, across the linear and the per-length lookups (fill adds rules).
func FuzzDecideUnrelatedRule(f *testing.F) {
	f.Add("feed|user:|5000|eu\nfeed||10000\nfeed|user:vip:|0", "feed", "user:vip:1", "eu", "", "feed|user|2500|eu|s", uint8(0), uint8(1))
	f.Add("s|ü|3333|||\ns|üb|6667", "s", "übel", "", "c1", "s|u|10000", uint8(9), uint8(0))
	f.Add("s|\xff\xfe|1|r\ns|\xff|9999", "s", "\xff\xfe\xfd", "r", "", "t|\xff|10000", uint8(12), uint8(2))
	f.Add("a|x|5000\na|xy|5000", "a", "xyz", "", "", "a|z|10000|q", uint8(3), uint8(200))
	f.Fuzz(func(t *testing.T, spec, service, key, region, unit, extra string, fill, at uint8) {
		rules := fuzzRules(spec)
		for i := range int(fill % 16) { // a service with more than 8 rules uses the per-length maps
			rules = append(rules, rollout.Rule{Service: service + "\x00", Prefix: strconv.Itoa(i), Percent: 50})
			rules = append(rules, rollout.Rule{Service: service, Prefix: "\x00fill" + strconv.Itoa(i), Percent: 50})
		}
		rules = validRules(rules)
		cfg := rollout.Config{Rules: rules}
		q := rollout.Query{Service: service, Key: key, Region: region, Unit: unit}
		fl, err := rollout.New(cfg)
		require.NoError(t, err)
		d := fl.Decide(q)
		require.Equal(t, naiveDecide(cfg, q), d)

		add := validRules(fuzzRules(extra))
		if len(add) != 1 || slices.ContainsFunc(rules, func(r rollout.Rule) bool {
			return r.Service == add[0].Service && r.Prefix == add[0].Prefix
		}) {
			return
		}
		x := add[0]
		related := x.Service == q.Service && strings.HasPrefix(q.Key, x.Prefix) &&
			(d.Rule < 0 || len(x.Prefix) > len(rules[d.Rule].Prefix))
		if related {
			return
		}
		pos := int(at) % (len(rules) + 1)
		more := rollout.Config{Rules: slices.Insert(slices.Clone(rules), pos, x)}
		require.NoError(t, fl.SetConfig(more))
		got := fl.Decide(q)
		require.Equal(t, naiveDecide(more, q), got)
		want := d
		if want.Rule >= pos {
			want.Rule++
		}
		require.Equal(t, want, got, "adding %+v at %d changed the decision", x, pos)
	})
}
