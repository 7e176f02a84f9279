package failover

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
	"unicode/utf8"
)

// ErrInvalidTable is wrapped by the errors of [NewTable] and [Table.UnmarshalJSON]
// for routes a client must not apply (a share outside (0, 1], a route to itself, a
// region name that is not UTF-8, shares of one region summing above 1, an unknown
// mechanism, routes out of order, a member of the wrong type); [Table.MarshalJSON]
// wraps it for a name that is not UTF-8, in a route or a region decision, and
// [Mechanism.MarshalText] and [Phase.MarshalText] (so MarshalJSON too) for a value
// outside their constants, such as the zero Mechanism of a route built by hand.
// The caller should keep the table in force and fetch or build the table again.
var ErrInvalidTable = errors.New("failover: invalid table")

// NewTable returns a Table holding routes, sorted as [Router.Step] sorts them (by
// From, To, then Mechanism), for a control plane that publishes a table it did not
// compute in this process, or a test that needs a fixed one. Regions is left empty:
// [Table.Pick] reads only the routes. routes is not modified.
//
// Errors wrap [ErrInvalidTable]: an empty region name or one that is not UTF-8
// (JSON could not carry it), a route from a region to itself, a share that is not a
// number in (0, 1], an unknown mechanism, the same (From, To, Mechanism) twice, or the
// shares leaving one region summing above 1.
func NewTable(now time.Time, run uint64, routes []Route) (Table, error) {
	rs := slices.Clone(routes)
	slices.SortStableFunc(rs, compareRoutes)
	if err := checkRoutes(rs); err != nil {
		return Table{}, err
	}
	return Table{Now: now, Run: run, Routes: rs}, nil
}

// MarshalText encodes the mechanism by name ("ring", "mega", "global"). Any other
// value, the zero Mechanism included, is an error wrapping [ErrInvalidTable].
func (m Mechanism) MarshalText() ([]byte, error) {
	if m < MechRing || m > MechGlobal {
		return nil, fmt.Errorf("%w: mechanism %d has no name", ErrInvalidTable, m)
	}
	return []byte(m.String()), nil
}

// UnmarshalText decodes a mechanism name written by [Mechanism.MarshalText].
func (m *Mechanism) UnmarshalText(b []byte) error {
	for x := MechRing; x <= MechGlobal; x++ {
		if string(b) == x.String() {
			*m = x
			return nil
		}
	}
	return fmt.Errorf("%w: unknown mechanism %q", ErrInvalidTable, b)
}

// MarshalText encodes the phase by name ("local", "spilling"; "" for the zero Phase).
// Any other value is an error wrapping [ErrInvalidTable].
func (p Phase) MarshalText() ([]byte, error) {
	if p > Spilling {
		return nil, fmt.Errorf("%w: phase %d has no name", ErrInvalidTable, p)
	}
	if p == 0 {
		return []byte{}, nil
	}
	return []byte(p.String()), nil
}

// UnmarshalText decodes a phase name written by [Phase.MarshalText].
func (p *Phase) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*p = 0
		return nil
	}
	for x := Local; x <= Spilling; x++ {
		if string(b) == x.String() {
			*p = x
			return nil
		}
	}
	return fmt.Errorf("%w: unknown phase %q", ErrInvalidTable, b)
}

// wireRoute and wireTable are the JSON form of Route and Table. The field names are
// part of the wire contract between a control plane and its clients.
type wireRoute struct {
	From      string    `json:"from"`
	To        string    `json:"to"`
	Share     float64   `json:"share"`
	Mechanism Mechanism `json:"mechanism"`
}

type wireTable struct {
	Now     time.Time        `json:"now"`
	Run     uint64           `json:"run"`
	Routes  []wireRoute      `json:"routes"`
	Regions []RegionDecision `json:"regions,omitempty"`
}

// MarshalJSON encodes the table as
//
//	{"now": RFC 3339, "run": n, "routes": [{"from", "to", "share", "mechanism"}...],
//	 "regions": [RegionDecision...]}
//
// with mechanisms and phases by name. The region decisions (signals, reasons) travel
// for display; a client needs only the routes. A route or a region decision naming a
// region that is not valid UTF-8 is an error wrapping [ErrInvalidTable]: JSON would
// change the name. So is a route whose Mechanism, or a decision whose Phase, has no
// name (see [Mechanism.MarshalText]).
func (t Table) MarshalJSON() ([]byte, error) {
	// JSON would replace the bytes of a name that is not UTF-8 with U+FFFD, and the
	// decoded table would route other regions than this one.
	for _, r := range t.Routes {
		if !utf8.ValidString(r.From) || !utf8.ValidString(r.To) {
			return nil, fmt.Errorf("%w: route %q -> %q: region name not UTF-8", ErrInvalidTable, r.From, r.To)
		}
	}
	// Nor a decision's (a Router refuses such a name in its Config; a table built
	// by hand may hold one): the decoded one would explain another region.
	for _, d := range t.Regions {
		if !utf8.ValidString(d.Name) {
			return nil, fmt.Errorf("%w: region decision %q: name not UTF-8", ErrInvalidTable, d.Name)
		}
	}
	w := wireTable{Now: t.Now, Run: t.Run, Routes: make([]wireRoute, len(t.Routes)), Regions: slices.Clone(t.Regions)}
	for i, r := range t.Routes {
		w.Routes[i] = wireRoute(r)
	}
	// A down region (Capacity 0 with demand) has an infinite Home and Projected,
	// which JSON cannot carry: send the largest finite value instead.
	for i := range w.Regions {
		s := &w.Regions[i].Signal
		for _, x := range []*float64{&s.Mean, &s.P, &s.HotShare, &s.Home, &s.Trend, &s.Projected} {
			switch {
			case math.IsNaN(*x):
				*x = 0
			case math.IsInf(*x, 0):
				*x = math.Copysign(math.MaxFloat64, *x)
			}
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes a table written by [Table.MarshalJSON] and checks its routes
// as [NewTable] does; they must also already be in the table's order, so the decoded
// table picks exactly as the encoded one did. The "routes" member is required and
// must not be null (MarshalJSON writes [] for no routes): a document without it
// would otherwise read as "no failover" and send every region's spill home. A null
// route, or a null member of one, reads as a zero value that the route checks
// refuse. On error t is unchanged and the error wraps [ErrInvalidTable] (or is the
// JSON syntax error), also for a member of the wrong type (a string share, a
// negative run, a time that does not parse), which wraps the decoder's error too.
// A JSON null as the whole table leaves t as it is, as encoding/json does for
// other types.
//
// Members it does not know, in the table or in a route, are ignored (and names
// match as encoding/json matches them, case-insensitively): a control plane
// upgraded before its clients may add members without every older client refusing
// its tables and keeping a stale one in force. A misspelt member is unknown too: a
// misspelt "routes" is refused as missing and a misspelt route member leaves a
// zero value the route checks refuse, but a misspelt "now", "run" or "regions"
// reads as its zero value.
func (t *Table) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil // encoding/json's convention: null leaves the value as it is
	}
	var w wireTable
	if err := json.Unmarshal(data, &w); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, ErrInvalidTable) {
			return err
		}
		// Well-formed JSON whose members have the wrong type (a string share, an
		// object for routes, a run below 0, a time that does not parse) is a table
		// the client must not apply, as a bad share is: errors.Is must say so.
		return fmt.Errorf("%w: %w", ErrInvalidTable, err)
	}
	// encoding/json decodes [] as an empty slice, a missing or null member as nil.
	if w.Routes == nil {
		return fmt.Errorf("%w: no routes member (or null)", ErrInvalidTable)
	}
	rs := make([]Route, len(w.Routes))
	for i, r := range w.Routes {
		rs[i] = Route(r)
	}
	if !slices.IsSortedFunc(rs, compareRoutes) {
		return fmt.Errorf("%w: routes out of order", ErrInvalidTable)
	}
	if err := checkRoutes(rs); err != nil {
		return err
	}
	if len(rs) == 0 {
		rs = nil
	}
	*t = Table{Now: w.Now, Run: w.Run, Routes: rs, Regions: w.Regions}
	return nil
}

func compareRoutes(a, b Route) int {
	return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Mechanism, b.Mechanism))
}

// checkRoutes validates sorted routes.
func checkRoutes(rs []Route) error {
	sum := 0.0
	for i, r := range rs {
		bad := func(why string, args ...any) error {
			return fmt.Errorf("%w: route %d (%q -> %q): %s", ErrInvalidTable, i, r.From, r.To, fmt.Sprintf(why, args...))
		}
		switch {
		case r.From == "" || r.To == "":
			return bad("empty region name")
		case !utf8.ValidString(r.From) || !utf8.ValidString(r.To):
			return bad("region name not UTF-8 (JSON would change it)")
		case r.From == r.To:
			return bad("routes a region to itself")
		case math.IsNaN(r.Share) || r.Share <= 0 || r.Share > 1:
			return bad("share %v not in (0, 1]", r.Share)
		case r.Mechanism < MechRing || r.Mechanism > MechGlobal:
			return bad("unknown mechanism %d", r.Mechanism)
		}
		if i > 0 && compareRoutes(rs[i-1], r) == 0 {
			return bad("listed twice")
		}
		if i == 0 || rs[i-1].From != r.From {
			sum = 0
		}
		sum += r.Share
		if sum > 1+1e-9 {
			return bad("shares leaving %q sum to %v > 1", r.From, sum)
		}
	}
	return nil
}
