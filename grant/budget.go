package grant

import (
	"errors"
	"fmt"
)

// Budget bounds what the agent may read in one turn. Every field is part of
// the fingerprint. The zero Budget is not valid; start from DefaultBudget.
type Budget struct {
	SearchCards int `json:"searchCards"` // cards per context_search call
	CardChars   int `json:"cardChars"`   // characters per card excerpt
	ReadChars   int `json:"readChars"`   // characters per context_read call
	TurnChars   int `json:"turnChars"`   // characters for the whole turn, all calls
	ListEntries int `json:"listEntries"` // entries per directory listing
	ScanFiles   int `json:"scanFiles"`   // files one directory search may scan
}

// DefaultBudget returns the budget of a Request without overrides: a
// handful of short cards per search and reads of a few pages, about 15,000
// tokens of Vault text for the whole turn.
func DefaultBudget() Budget {
	return Budget{
		SearchCards: 8,
		CardChars:   500,
		ReadChars:   8000,
		TurnChars:   60000,
		ListEntries: 200,
		ScanFiles:   10000,
	}
}

// MaxBudget returns the hard limits: an override above one is capped to
// it. A single read never exceeds 100,000 characters, the size real MCP
// clients accept in one tool result.
func MaxBudget() Budget {
	return Budget{
		SearchCards: 50,
		CardChars:   2000,
		ReadChars:   100000,
		TurnChars:   400000,
		ListEntries: 5000,
		ScanFiles:   100000,
	}
}

// CardOverhead is what a search reserves per card beyond its excerpt: the
// card's title, locator, citation URI and fields. A turn's budget holds at
// least one card: TurnChars >= CardChars + CardOverhead.
const CardOverhead = 400

// BudgetOverrides names the budget fields a Request changes; nil fields keep
// their default. A zero or negative override is an error.
type BudgetOverrides struct {
	SearchCards *int `json:"searchCards,omitempty"`
	CardChars   *int `json:"cardChars,omitempty"`
	ReadChars   *int `json:"readChars,omitempty"`
	TurnChars   *int `json:"turnChars,omitempty"`
	ListEntries *int `json:"listEntries,omitempty"`
	ScanFiles   *int `json:"scanFiles,omitempty"`
}

// ErrBudget is wrapped by errors about budget values.
var ErrBudget = errors.New("invalid budget")

// fields pairs every budget field with its name, in the canonical order used
// by validation and the fingerprint.
func (b *Budget) fields() []struct {
	name string
	v    *int
} {
	return []struct {
		name string
		v    *int
	}{
		{"searchCards", &b.SearchCards},
		{"cardChars", &b.CardChars},
		{"readChars", &b.ReadChars},
		{"turnChars", &b.TurnChars},
		{"listEntries", &b.ListEntries},
		{"scanFiles", &b.ScanFiles},
	}
}

func (o *BudgetOverrides) fields() []*int {
	return []*int{o.SearchCards, o.CardChars, o.ReadChars, o.TurnChars, o.ListEntries, o.ScanFiles}
}

// Apply returns b with the overrides applied, each capped at MaxBudget. A
// zero or negative override is an error wrapping ErrBudget.
func (o *BudgetOverrides) Apply(b Budget) (Budget, error) {
	if o == nil {
		return b, nil
	}
	out := b
	max := MaxBudget()
	dst, lim := out.fields(), max.fields()
	for i, v := range o.fields() {
		if v == nil {
			continue
		}
		if *v <= 0 {
			return b, fmt.Errorf("%w: %s must be positive, got %d", ErrBudget, dst[i].name, *v)
		}
		*dst[i].v = min(*v, *lim[i].v)
	}
	return out, nil
}

// Capped says, one line per field, which overrides are above MaxBudget
// and so capped by Apply: "turnChars 500000 is above the hard limit:
// capped at 400000". It is nil when none is.
func (o *BudgetOverrides) Capped() []string {
	if o == nil {
		return nil
	}
	max := MaxBudget()
	lim := max.fields()
	var out []string
	for i, v := range o.fields() {
		if v != nil && *v > *lim[i].v {
			out = append(out, fmt.Sprintf("%s %d is above the hard limit: capped at %d", lim[i].name, *v, *lim[i].v))
		}
	}
	return out
}

// Validate reports whether every field is positive and within MaxBudget.
func (b Budget) Validate() error {
	max := MaxBudget()
	lim := max.fields()
	for i, f := range b.fields() {
		if *f.v <= 0 || *f.v > *lim[i].v {
			return fmt.Errorf("%w: %s = %d, want 1..%d", ErrBudget, f.name, *f.v, *lim[i].v)
		}
	}
	return nil
}
