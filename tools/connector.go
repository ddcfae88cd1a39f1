package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/textnorm"
	"github.com/researchctx/researchctx/sources"
)

// ErrSource is wrapped by the error of a call whose connector source failed
// for a reason of its own (its service is down, its file is malformed).
// The model is told only that, with the path it asked about: a connector's
// own message may name internal addresses or paths of the machine, so it
// goes to the Toolset's Logger instead.
var ErrSource = errors.New("the source failed")

// sourceSentinels are the errors of package sources a connector's error may
// wrap; tools turns each into one of its own (see mapErr) and shows the
// model nothing else of the connector's message.
var sourceSentinels = []error{
	sources.ErrNotFound, sources.ErrOutside, sources.ErrNotText, sources.ErrNoTextLayer,
	sources.ErrUnsupported, sources.ErrIsDirectory,
}

// sentinelError is a connector's typed error as the model sees it: the
// sentinel alone.
type sentinelError struct{ sentinel error }

func (e *sentinelError) Error() string { return e.sentinel.Error() }
func (e *sentinelError) Unwrap() error { return e.sentinel }

// sourceErr returns the error err of a granted source as the model may see
// it. A Vault source's errors name only vault-relative paths and pass
// unchanged: a document that cannot be read says so in a few words, and
// the PDF parser's own account goes to the Logger. A connector's (conn)
// become the sources sentinel they wrap, or ErrSource; the full error is
// logged. A cancellation stays one.
func (t *Toolset) sourceErr(conn bool, ref string, err error) error {
	var detail interface{ Detail() string }
	if err != nil && errors.As(err, &detail) {
		t.log.Warn("document cannot be read", "source", ref, "err", err.Error(), "detail", detail.Detail())
	}
	if err == nil || !conn || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var redacted *sentinelError
	if errors.As(err, &redacted) || errors.Is(err, ErrSource) {
		return err // already redacted
	}
	t.log.Warn("connector source failed", "source", ref, "err", err)
	for _, s := range sourceSentinels {
		if errors.Is(err, s) {
			return &sentinelError{s}
		}
	}
	return fmt.Errorf("%w (the failure was logged)", ErrSource)
}

// connector reports whether src comes from a connector: it is a granted
// connector source or one inside it (an item a Container gave).
func (t *Toolset) connector(src sources.Source) bool {
	ref := src.Info().Path
	for r := range t.conn {
		if connectorPath(r, ref) {
			return true
		}
	}
	for _, s := range t.sources {
		if h, ok := s.(sources.Holder); ok && t.conn[s.Info().Path] && h.Holds(ref) {
			return true
		}
	}
	return false
}

// covers reports whether the connector source src holds the document p:
// p is below its path (see connectorPath) or src says it holds it
// (sources.Holder).
func covers(src sources.Source, p string) bool {
	if connectorPath(src.Info().Path, p) {
		return true
	}
	h, ok := src.(sources.Holder)
	return ok && h.Holds(p)
}

// mapErr is the package's mapErr for an error of the source being read.
func (r *reader) mapErr(err error, p string) error {
	return mapErr(r.t.sourceErr(r.tg.conn, r.tg.src.Info().Path, err), p)
}

// checkDocument refuses a connector's document whose path is not in the
// source read: its citation would name what the grant does not cover.
func (r *reader) checkDocument(doc *sources.Document) error {
	ref := r.tg.src.Info().Path
	switch {
	case doc == nil:
		return fmt.Errorf("%w: %s returned no document", ErrSource, quoteArg(ref))
	case !r.tg.conn || covers(r.tg.src, doc.Path):
		return nil
	}
	r.t.log.Warn("connector document outside its source refused", "source", ref, "path", doc.Path)
	return fmt.Errorf("%w: %s returned a document outside it", ErrSource, quoteArg(ref))
}

// maxProblemLines bounds a connector's relation problems, as the Vault's
// are bounded.
const maxProblemLines = 5

// problemLines returns a connector's relation problems as the model may
// see them: at most maxProblemLines, one line each, with no link or
// absolute path. A Vault source's pass unchanged.
func problemLines(conn bool, lines []string) []string {
	if !conn {
		return lines
	}
	var out []string
	for _, l := range lines {
		if len(out) == maxProblemLines {
			break
		}
		l = textnorm.Line(l)
		l = linkOrPath().ReplaceAllString(l, "${1}(redacted)")
		if l, _ = textnorm.Truncate(l, 200); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// linkOrPath matches a token that is a link (scheme://…) or starts like an
// absolute path (/x, ~/x, C:\x), after the start, a space, a quote, a
// bracket or '='.
var linkOrPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s"'(\[=<])(?:[A-Za-z][A-Za-z0-9+.-]*://|/|~/|[A-Za-z]:\\)[^\s"')\]>]*`)
})

// OpenFunc opens one granted source as a Toolset does: through the driver
// the registry has for its kind, with the grant's Vault in its Env.
type OpenFunc func(ctx context.Context, ref grant.Ref) (sources.Source, error)

// openSources opens the grant's sources through the registry (or the
// host's Options.Sources). A source of a kind no driver is registered for
// fails the Open, wrapping grant.ErrInvalid: the server refuses the grant
// rather than serve part of it. A Vault source that vanished since the plan
// is left out; a connector's source that cannot be opened stays granted
// and answers every call with ErrSource.
func (t *Toolset) openSources(ctx context.Context, g *grant.Grant, reg *sources.Registry, custom func(context.Context, *grant.Grant, OpenFunc) ([]sources.Source, error)) ([]sources.Source, error) {
	env := &sources.Env{Vault: t.lib}
	var mu sync.Mutex
	fromVault := map[string]bool{} // refs open opened as Vault sources
	open := func(ctx context.Context, ref grant.Ref) (sources.Source, error) {
		if err := known(reg, ref); err != nil {
			return nil, err
		}
		src, err := reg.Open(ctx, ref, env)
		if err == nil && reg.LibraryKind(ref.Kind) {
			mu.Lock()
			fromVault[src.Info().Path] = true
			mu.Unlock()
		}
		return src, err
	}
	if custom != nil {
		srcs, err := custom(ctx, g, open)
		if err != nil {
			return nil, err
		}
		// The host's own sources are treated as connectors: only what
		// open opened from the Vault keeps its errors.
		mu.Lock()
		defer mu.Unlock()
		for _, s := range srcs {
			if !fromVault[s.Info().Path] {
				t.conn[s.Info().Path] = true
			}
		}
		return srcs, nil
	}
	for _, ref := range g.Sources {
		if err := known(reg, ref); err != nil {
			return nil, err
		}
	}
	var out []sources.Source
	for _, ref := range g.Sources {
		src, err := open(ctx, ref)
		if reg.LibraryKind(ref.Kind) {
			if err != nil {
				// The agent is told it is not found when it asks.
				t.log.Warn("granted source cannot be opened", "path", ref.Path, "err", err)
				continue
			}
			out = append(out, src)
			continue
		}
		if err == nil && (src.Info().Path != ref.Path || src.Info().Kind != ref.Kind) {
			err = fmt.Errorf("the connector opened %s %q for %s %q", src.Info().Kind, src.Info().Path, ref.Kind, ref.Path)
			if c, ok := src.(io.Closer); ok {
				c.Close()
			}
		}
		if err != nil {
			t.log.Warn("granted connector source cannot be opened", "kind", ref.Kind, "path", ref.Path, "err", err)
			src = unavailable{sources.Info{Path: ref.Path, Kind: ref.Kind, Title: textnorm.Line(ref.Title)}}
		}
		t.conn[ref.Path] = true
		out = append(out, src)
	}
	return out, nil
}

// known refuses a granted source whose kind reg has no driver for: the
// grant cannot be served as it was made (fail closed).
func known(reg *sources.Registry, ref grant.Ref) error {
	if reg.Driver(ref.Kind) == nil {
		return fmt.Errorf("%w: source %q has kind %q, which this server does not know: its connector is not linked into this program", grant.ErrInvalid, textnorm.Line(ref.Path), ref.Kind)
	}
	return nil
}

// closeSources closes the connector sources that hold resources
// (io.Closer).
func (t *Toolset) closeSources() error {
	var errs []error
	for _, s := range t.sources {
		if c, ok := s.(io.Closer); ok && t.connector(s) {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// unavailable stands for a connector's source that could not be opened: it
// stays in the grant, and every call on it says the source failed.
type unavailable struct{ info sources.Info }

func (u unavailable) Info() sources.Info { return u.info }

func (u unavailable) Search(context.Context, sources.Query) (*sources.Results, error) {
	return nil, fmt.Errorf("%w: %s could not be opened (the failure was logged)", ErrSource, quoteArg(u.info.Path))
}

func (u unavailable) Read(context.Context, string) (*sources.Document, error) {
	return nil, fmt.Errorf("%w: %s could not be opened (the failure was logged)", ErrSource, quoteArg(u.info.Path))
}

// connectorPath reports whether p lies in the connector source ref: its
// hits and documents must, or a citation would name what the grant does not.
func connectorPath(ref, p string) bool {
	return p == ref || strings.HasPrefix(p, ref+"/")
}
