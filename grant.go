package researchctx

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// GrantVersion is the version of the grant file format.
const GrantVersion = 1

// GrantFile and UsageFile are the names of the two files in a runtime's
// folder under .agentero/context-sessions/.
const (
	GrantFile = "grant.json"
	UsageFile = "usage.jsonl"
)

// sessionsDir is where grants live, relative to the Vault root.
var sessionsDir = filepath.Join(".agentero", "context-sessions")

// ErrGrant is wrapped by every error about a grant file that is missing,
// unreadable, malformed or inconsistent.
var ErrGrant = errors.New("invalid grant")

// Grant is the on-disk form of a Plan that the agentero-context server
// enforces: what this turn may read, within which budget.
type Grant struct {
	Version     int       `json:"version"`
	Vault       string    `json:"vault"`
	RuntimeID   string    `json:"runtimeId"`
	TurnID      string    `json:"turnId"`
	Sources     []Source  `json:"sources"`
	Tools       []string  `json:"tools"`
	Budget      Budget    `json:"budget"`
	Mode        Mode      `json:"mode"`
	Fingerprint string    `json:"fingerprint"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Grant returns the grant of the plan, stamped now.
func (p *Plan) Grant() *Grant {
	return &Grant{
		Version:     GrantVersion,
		Vault:       p.Vault,
		RuntimeID:   p.RuntimeID,
		TurnID:      p.TurnID,
		Sources:     append([]Source{}, p.Sources...),
		Tools:       append([]string{}, p.Tools...),
		Budget:      p.Budget,
		Mode:        p.Mode,
		Fingerprint: p.Fingerprint,
		CreatedAt:   time.Now().UTC().Truncate(time.Second),
	}
}

// GrantPath returns {vault}/.agentero/context-sessions/{runtimeID}/grant.json,
// refusing a runtime id that is not a safe single path segment.
func GrantPath(vaultRoot, runtimeID string) (string, error) {
	if err := CheckRuntimeID(runtimeID); err != nil {
		return "", fmt.Errorf("%w: %w", ErrGrant, err)
	}
	if !filepath.IsAbs(vaultRoot) {
		return "", fmt.Errorf("%w: vault must be an absolute path", ErrGrant)
	}
	return filepath.Join(vaultRoot, sessionsDir, runtimeID, GrantFile), nil
}

// UsagePath returns the usage log that belongs to a grant file.
func UsagePath(grantPath string) string {
	return filepath.Join(filepath.Dir(grantPath), UsageFile)
}

// WriteGrant writes the plan's grant atomically (a temporary file in the same
// folder, then rename), the file 0600 and the folders 0700, and returns its
// path. A host calls it every turn: the turn id changes, and the fingerprint
// stays the same while the scope does.
func (p *Plan) WriteGrant() (string, error) {
	return WriteGrant(p.Grant())
}

// WriteGrant writes g to its place under g.Vault; see Plan.WriteGrant.
func WriteGrant(g *Grant) (string, error) {
	if err := g.validate(); err != nil {
		return "", err
	}
	path, err := GrantPath(g.Vault, g.RuntimeID)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the grant folder: %w", redact(err, g.Vault))
	}
	// MkdirAll leaves existing folders alone; make sure ours are private.
	for d := dir; d != g.Vault && len(d) > len(g.Vault); d = filepath.Dir(d) {
		_ = os.Chmod(d, 0o700)
	}
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return "", err
	}
	data = append(data, '\n')
	tmp, err := os.CreateTemp(dir, ".grant-*.tmp")
	if err != nil {
		return "", fmt.Errorf("writing the grant: %w", redact(err, g.Vault))
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing the grant: %w", redact(err, g.Vault))
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing the grant: %w", redact(err, g.Vault))
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing the grant: %w", redact(err, g.Vault))
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("writing the grant: %w", redact(err, g.Vault))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("writing the grant: %w", redact(err, g.Vault))
	}
	return path, nil
}

// maxGrant bounds a grant file; a real one is a few kilobytes.
const maxGrant = 4 << 20

// ReadGrant reads and validates a grant file: version, an absolute vault, a
// safe runtime id that matches the folder it is in, a known mode, a valid
// budget, and a fingerprint equal to the one its scope computes to. Errors
// wrap ErrGrant and name no absolute path.
func ReadGrant(path string) (*Grant, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: grant file not found", ErrGrant)
		}
		return nil, fmt.Errorf("%w: grant file cannot be read", ErrGrant)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxGrant {
		return nil, fmt.Errorf("%w: grant is not a regular file of at most 4 MiB", ErrGrant)
	}
	var g Grant
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return nil, fmt.Errorf("%w: grant is not valid JSON: %s", ErrGrant, jsonReason(err))
	}
	if err := g.validate(); err != nil {
		return nil, err
	}
	if base := filepath.Base(filepath.Dir(path)); base != g.RuntimeID {
		return nil, fmt.Errorf("%w: runtimeId %q does not match its folder %q", ErrGrant, g.RuntimeID, base)
	}
	return &g, nil
}

func (g *Grant) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrGrant}, a...)...)
	}
	switch {
	case g.Version != GrantVersion:
		return bad("version %d, want %d", g.Version, GrantVersion)
	case g.Vault == "" || !filepath.IsAbs(g.Vault):
		return bad("vault must be an absolute path")
	case g.TurnID == "":
		return bad("turnId is missing")
	case g.Fingerprint == "":
		return bad("fingerprint is missing")
	case g.Mode != ModeMCP && g.Mode != ModePromptOnly:
		return bad("unknown mode %q", g.Mode)
	}
	if err := CheckRuntimeID(g.RuntimeID); err != nil {
		return bad("%v", err)
	}
	if err := g.Budget.Validate(); err != nil {
		return bad("%v", err)
	}
	for _, s := range g.Sources {
		if s.Kind != KindPaper && s.Kind != KindDirectory && s.Kind != KindFile {
			return bad("source %q has unknown kind %q", s.Path, s.Kind)
		}
		if s.Path == "" {
			return bad("source with an empty path")
		}
	}
	if fp := Fingerprint(g.Tools, g.Sources, g.Budget, g.Mode); fp != g.Fingerprint {
		return bad("fingerprint does not match its scope")
	}
	return nil
}

// jsonReason keeps a JSON error's message but never file contents.
func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	}
	return err.Error()
}

// redact replaces the vault root in an error message with "{vault}" so no
// absolute path of the machine reaches a caller's logs or an agent.
func redact(err error, root string) error {
	if err == nil || root == "" {
		return err
	}
	return &redacted{err: err, root: root}
}

type redacted struct {
	err  error
	root string
}

func (r *redacted) Error() string { return replaceRoot(r.err.Error(), r.root) }
func (r *redacted) Unwrap() error { return r.err }
