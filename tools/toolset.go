package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/usage"
)

// Errors a call can fail with, besides sources.ErrNotFound (no such
// document, page or section). All but ErrGrantChanged are mistakes the
// model can act on; ErrGrantChanged means the session must end (fail
// closed).
var (
	ErrGrantChanged = errors.New("the grant changed; start a new session")
	ErrNotGranted   = errors.New("not granted in this turn")
	// ErrBudgetSpent is usage.ErrTurnSpent, which the usage log's
	// reservation returns.
	ErrBudgetSpent     = usage.ErrTurnSpent
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrCallTimeout is wrapped by the error of a call that ran past its
	// own deadline (Options.CallTimeout): it returns and logs nothing, and
	// the Toolset goes on serving; a narrower call (a page, a section, a
	// smaller limit) may fit, and work the call finished is kept (parsed
	// references, extracted text), so the same call may fit later.
	ErrCallTimeout = errors.New("the call ran out of time")
)

// DefaultCallTimeout is a call's deadline when Options.CallTimeout is
// zero. It is above the limits of the work inside a call — the PDF
// extractor's 30 s per document, the relations graph's 45 s per paper —
// so that theirs fire first, and their outcome is remembered.
const DefaultCallTimeout = 60 * time.Second

// errCallDeadline is the cause (see context.Cause) of a call's context
// that its own deadline ended, as against the caller's.
var errCallDeadline = errors.New("the call's deadline passed")

// Options configure a Toolset. The zero value serves a Vault grant, and the
// connectors registered in sources.DefaultRegistry.
type Options struct {
	// Registry opens the grant's Vault (its library opener, see
	// sources.Registry.RegisterLibrary) and its sources, each through the
	// driver registered for its kind: the Vault's kinds (papers,
	// directories, files) through the Vault's library, any other through
	// its connector's. Nil means sources.DefaultRegistry, where package
	// sources/vault registers the Vault when it is linked; a registry of
	// the host's own needs vault.RegisterLibrary. A grant with a kind the
	// registry does not know is refused (see Open); a registry without a
	// library (sources.ErrNoLibrary) serves the host's own sources alone.
	Registry *sources.Registry
	// Sources, when set, makes the grant's sources in place of opening each
	// one: open opens a granted source as the Toolset otherwise would, so a
	// host may wrap, leave out or add sources and still serve the Vault's
	// own, paper relations included. Sources it returns that open did not
	// open from the Vault are treated as connectors: their errors reach
	// the model only as typed one-liners (see ErrSource).
	Sources func(ctx context.Context, g *grant.Grant, open OpenFunc) ([]sources.Source, error)
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// CacheRoot is the host's folder for the caches of every Vault, the
	// one its resolver used (researchctx.Resolver.CacheRoot): the grant's
	// Vault keeps its caches in its own subfolder of it. Empty keeps the
	// Vault's own .agentero/cache, "-" keeps no cache on disk.
	CacheRoot string
	// MaxResultChars caps the charge of one call (the characters of every
	// string of its result; see ReadOutput.Chars), whatever the grant's
	// budget allows: a transport sets it so a result fits its clients'
	// limit, and the Toolset then cuts, pages and logs exactly what it
	// returns. Zero means no cap beyond the budget.
	MaxResultChars int
	// CallTimeout is the deadline of each call (Search, Read, Relations),
	// on top of the caller's context: the call's context ends then, and
	// with it everything the call reads (sources, PDF text, OCR, the
	// relations graph), and the call fails with ErrCallTimeout. Zero means
	// DefaultCallTimeout; a negative value means none but the caller's.
	CallTimeout time.Duration
}

// Toolset answers the three tools for one grant. It is safe for concurrent
// use.
type Toolset struct {
	grantPath   string
	fingerprint string
	log         *slog.Logger
	maxResult   int           // Options.MaxResultChars, 0 for none
	callTimeout time.Duration // Options.CallTimeout, resolved; 0 for none

	grant   *grant.Grant     // as read at Open
	sources []sources.Source // in grant order
	lib     sources.Library  // the grant's Vault
	conn    map[string]bool  // refs of the sources that come from connectors
	// coll is the grant's documents, whose statistics every search of
	// its Vault sources scores with (see sources.Library.Collection).
	coll sources.Collection

	usage *usage.Log // shared with every process on the grant
}

// Open reads the grant at grantPath, remembers its fingerprint and opens its
// sources. A grant that is missing, invalid or prompt-only is an error, and
// so is one naming a source kind Options.Registry has no connector for:
// both wrap grant.ErrInvalid. A ctx already cancelled or past its deadline
// opens nothing and gives ctx.Err().
func Open(ctx context.Context, grantPath string, opts *Options) (*Toolset, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &Options{}
	}
	g, err := grant.Read(grantPath)
	if err != nil {
		return nil, err
	}
	if g.Mode != grant.ModeMCP {
		return nil, fmt.Errorf("%w: the grant is %s: it allows no tools", grant.ErrInvalid, g.Mode)
	}
	t := &Toolset{
		grant:       g,
		grantPath:   grantPath,
		usage:       usage.Open(grant.UsagePath(grantPath)),
		fingerprint: g.Fingerprint,
		log:         opts.Logger,
		maxResult:   opts.MaxResultChars,
		callTimeout: opts.CallTimeout,
		conn:        map[string]bool{},
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	switch {
	case t.callTimeout == 0:
		t.callTimeout = DefaultCallTimeout
	case t.callTimeout < 0:
		t.callTimeout = 0
	}
	reg := opts.Registry
	if reg == nil {
		reg = sources.DefaultRegistry
	}
	// A toolset serves a session: its first search does not wait for
	// every paper's stats, and its hits are checked against the papers.
	t.lib, err = reg.OpenLibrary(ctx, g.Vault, &sources.LibraryOptions{CacheDir: agentero.VaultCache(opts.CacheRoot, g.Vault), Serving: true})
	switch {
	case errors.Is(err, sources.ErrNoLibrary):
		// A host that links no library serves its own sources
		// (Options.Sources); a Vault kind is refused as unknown.
		t.lib = nil
	case err != nil:
		return nil, fmt.Errorf("opening the vault: %w", err)
	}
	if t.sources, err = t.openSources(ctx, g, reg, opts.Sources); err != nil {
		t.Close()
		return nil, err
	}
	if t.lib != nil {
		t.coll = t.lib.Collection(t.sources)
	}
	return t, nil
}

// Close closes the connector sources that implement io.Closer, stops the
// library's background work (a running index build, which it waits for)
// and releases the Vault.
func (t *Toolset) Close() error {
	err := t.closeSources()
	if t.lib != nil {
		err = errors.Join(err, t.lib.Close()) // waits for a background index build
	}
	return err
}

// Sources returns the granted sources the Toolset serves.
func (t *Toolset) Sources() []sources.Source { return t.sources }

// Grant returns the grant the Toolset was opened with, as read then; a
// server reads it from here rather than from the file again. Each call still
// checks the file's fingerprint against it.
func (t *Toolset) Grant() *grant.Grant { return t.grant }

// turn is the per-call view of the grant and the budget the call reserved.
type turn struct {
	ctx   context.Context // the call's
	grant *grant.Grant
	res   *usage.Reservation
}

// begin re-reads the grant and reserves the call's budget: at most perCall
// characters (and the transport's cap), at most what the turn has left
// counting every call in flight in any process. It fails closed when the
// grant is gone or its scope changed, and when the budget is spent. The
// caller must settle the reservation (finish) or release it (end).
func (t *Toolset) begin(ctx context.Context, perCall func(grant.Budget) int) (*turn, error) {
	g, err := grant.Read(t.grantPath)
	if err != nil || g.Fingerprint != t.fingerprint {
		return nil, ErrGrantChanged
	}
	want := max(1, perCall(g.Budget))
	if t.maxResult > 0 {
		want = min(want, t.maxResult)
	}
	res, used, err := t.usage.Reserve(ctx, g.TurnID, g.Budget.TurnChars, want)
	if errors.Is(err, usage.ErrTurnSpent) {
		return nil, fmt.Errorf("%w: %d of %d characters used", ErrBudgetSpent, min(used, g.Budget.TurnChars), g.Budget.TurnChars)
	}
	if err != nil {
		return nil, err
	}
	return &turn{ctx: ctx, grant: g, res: res}, nil
}

// limit returns how many characters this call may return.
func (tn *turn) limit() int { return tn.res.Chars() }

// end releases the reservation of a call that returns no result; after
// finish it does nothing.
func (tn *turn) end() {
	if tn != nil {
		_ = tn.res.Release()
	}
}

// spent is the error of a call whose result cannot fit what it reserved.
func (tn *turn) spent(need int) error {
	return fmt.Errorf("%w: %d characters remain for this call, too few for its result (%d)", ErrBudgetSpent, tn.limit(), need)
}

// finish logs the call, settling its reservation with exactly the
// characters returned, and returns the budget report after it. A call
// whose context ended is not logged: what it built may lack what the end
// cut short, and the caller has gone.
func (t *Toolset) finish(tn *turn, tool string, uris []string, chars int) (BudgetReport, error) {
	return t.finishSame(tn, tool, uris, nil, chars)
}

// finishSame is finish for a result that knows some of its locators to
// name one work (usage.Line.Same).
func (t *Toolset) finishSame(tn *turn, tool string, uris []string, same [][]string, chars int) (BudgetReport, error) {
	return t.finishPlaced(tn, tool, uris, same, nil, chars)
}

// finishPlaced is finishSame for a result that hands out connector URIs of
// documents outside the grant (a related item's card): every other
// connector URI of uris came from a granted source, and the line lists it
// as granted (usage.Line.Granted), since its path cannot say so.
func (t *Toolset) finishPlaced(tn *turn, tool string, uris []string, same [][]string, outside map[string]bool, chars int) (BudgetReport, error) {
	if err := tn.ctx.Err(); err != nil {
		return BudgetReport{}, err
	}
	uris = dedupe(uris)
	var granted []string
	for _, u := range uris {
		if !outside[u] && usage.Connector(u) {
			granted = append(granted, u)
		}
	}
	used, err := tn.res.SettleLine(usage.Line{Tool: tool, URIs: uris, Same: same, Granted: granted, Chars: chars})
	if err != nil {
		// Nothing may be handed out that is not logged.
		return BudgetReport{}, err
	}
	return BudgetReport{Used: used, Remaining: max(0, tn.grant.Budget.TurnChars-used)}, nil
}

// ErrInternal is wrapped by the error of a call that hit a bug in the
// server (a panic): the call fails with it, the bug is logged, and the
// server goes on serving.
var ErrInternal = errors.New("internal error")

// recovered turns a panic of a call into ErrInternal and a log line. It
// reports whether there was one; it must be called with recover() from the
// call's deferred function.
func (t *Toolset) recovered(tool string, v any, err *error) bool {
	if v == nil {
		return false
	}
	t.log.Error("tool call failed with a panic", "tool", tool, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	*err = fmt.Errorf("%w: %s failed; the failure was logged", ErrInternal, tool)
	return true
}

// sameWork returns the locators of one work — its Vault URI and the links
// of its DOI and arXiv id — when there are at least two, else nil.
func sameWork(uri, doi, arxiv string) []string {
	// The links as relation cards give them, so that the sets of several
	// calls name one work alike.
	doi, arxiv = cite.Identifiers(doi, arxiv)
	var links []string
	if doi != "" {
		links = append(links, cite.DOI(doi))
	}
	if arxiv != "" {
		links = append(links, cite.ArXiv(arxiv))
	}
	if set := dedupe(append([]string{uri}, links...)); len(set) > 1 {
		return set
	}
	return nil
}

// callContext gives a call its own deadline (Options.CallTimeout) within
// the caller's context.
func (t *Toolset) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if t.callTimeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, t.callTimeout, errCallDeadline)
}

// ctxErr is a call's error once its context has ended: ErrCallTimeout
// when the call's own deadline ended it, else the context's (errors.Is
// matches it), never what the cut-short work failed with (a PDF "timed
// out", a source "failed").
func (t *Toolset) ctxErr(ctx context.Context, tool string, err error) error {
	cerr := ctx.Err()
	switch {
	case err == nil || cerr == nil:
		return err
	case errors.Is(context.Cause(ctx), errCallDeadline):
		return fmt.Errorf("%w: %s stopped after %v, its time limit; ask for less (a page, a section, a smaller limit), or call again later", ErrCallTimeout, tool, t.callTimeout)
	case !errors.Is(err, cerr):
		return fmt.Errorf("%s: %w", tool, cerr)
	}
	return err
}

func dedupe(uris []string) []string {
	out := make([]string, 0, len(uris))
	seen := map[string]bool{}
	for _, u := range uris {
		if u != "" && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// target is a resolved read target.
type target struct {
	src  sources.Source
	path string // "" for the source itself, else a vault path inside it
	frag cite.URI
	conn bool // src comes from a connector (see sourceErr)
}

// resolve maps a target (a source path, a path inside a granted source, or a
// citation URI of either) to its granted source.
func (t *Toolset) resolve(ctx context.Context, raw string) (*target, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fmt.Errorf("%w: target is empty", ErrInvalidArgument)
	}
	u, err := cite.Parse(raw)
	if err != nil {
		return nil, &targetError{arg: quoteArg(raw), why: strings.TrimPrefix(err.Error(), cite.ErrInvalid.Error()+": ")}
	}
	if u.DOI != "" || u.ArXiv != "" {
		return nil, fmt.Errorf("%w: %s is an external link, not a granted source", ErrNotGranted, quoteArg(raw))
	}
	src, inner := t.owner(u.Path)
	if src == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotGranted, quoteArg(u.Path))
	}
	conn := t.connector(src)
	if inner != "" {
		src, inner = t.paperInside(ctx, src, inner)
	}
	return &target{src: src, path: inner, frag: u, conn: conn}, nil
}

// paperInside serves a paper unit inside a granted directory (an
// organisation folder), or an item inside a connector's source, through
// the source the container gives for it, so it has metadata, sections,
// regions and relations like a granted paper.
func (t *Toolset) paperInside(ctx context.Context, dir sources.Source, p string) (sources.Source, string) {
	c, ok := dir.(sources.Container)
	if !ok {
		return dir, p
	}
	src, inner, err := c.Inner(ctx, p)
	if err != nil {
		return dir, p
	}
	return src, inner
}

// owner finds the most specific granted source that contains p.
func (t *Toolset) owner(p string) (sources.Source, string) {
	var best sources.Source
	inner := ""
	for _, s := range t.sources {
		ref := s.Info().Path
		switch {
		case ref == p:
			return s, ""
		case ref == "." || strings.HasPrefix(p, ref+"/"):
			if s.Info().Kind == grant.KindFile {
				continue
			}
			if best == nil || len(ref) > len(best.Info().Path) {
				best, inner = s, p
			}
		}
	}
	if best == nil {
		// A connector's document named outside its source's path (a
		// Zotero item of a granted collection).
		for _, s := range t.sources {
			if h, ok := s.(sources.Holder); ok && t.conn[s.Info().Path] && h.Holds(p) {
				return s, p
			}
		}
	}
	return best, inner
}

// targetError is the error of a target that no grant can hold, such as
// "notes/../x.md" or a file name with a raw '#': it says what is wrong
// with it, and wraps ErrInvalidArgument and ErrNotGranted (nothing was
// read).
type targetError struct{ arg, why string }

func (e *targetError) Error() string {
	return fmt.Sprintf("%s: %s is not a path or citation URI a grant can hold: %s", ErrInvalidArgument, e.arg, e.why)
}

func (e *targetError) Unwrap() []error { return []error{ErrInvalidArgument, ErrNotGranted} }

// quoteArg renders an argument for an error message: quoted, short, with no
// control characters.
func quoteArg(s string) string {
	if strings.HasPrefix(s, "/") || filepath.IsAbs(s) || len(s) > 2 && s[1] == ':' {
		// Never echo a path of the machine back, even the caller's own.
		return "(an absolute path)"
	}
	if utf8.RuneCountInString(s) > 200 {
		s = string([]rune(s)[:200]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
