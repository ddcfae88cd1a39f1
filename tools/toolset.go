package tools

import (
	"context"
	"errors"
	"log/slog"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/sources"
)

// Errors a call can fail with. All but ErrGrantChanged are mistakes the model
// can act on; ErrGrantChanged means the session must end (fail closed).
var (
	ErrGrantChanged    = errors.New("the grant changed; start a new session")
	ErrNotGranted      = errors.New("not granted in this turn")
	ErrNotFound        = errors.New("not found")
	ErrBudgetSpent     = errors.New("the turn's reading budget is spent")
	ErrInvalidArgument = errors.New("invalid argument")
)

// Options configure a Toolset. The zero value serves a Vault grant.
type Options struct {
	// Sources opens the sources of a grant. Nil opens the Vault's own:
	// papers, directories and plain files (see package sources).
	Sources func(ctx context.Context, g *researchctx.Grant) ([]sources.Source, error)
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Toolset answers the three tools for one grant. It is safe for concurrent
// use.
type Toolset struct {
	grantPath   string
	usagePath   string
	fingerprint string
	opts        Options
}
