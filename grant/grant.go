package grant

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/researchctx/researchctx/internal/agentero"
	"github.com/researchctx/researchctx/internal/safefs"
)

// FormatVersion is the version of the grant file format (the grant's
// "version" field), not of the SDK, which is mcp.Version.
const FormatVersion = 1

// File and UsageFile are the names of the two files in a runtime's
// folder under .agentero/context-sessions/.
const (
	File      = "grant.json"
	UsageFile = "usage.jsonl"
)

// sessionsDir is where grants live, relative to the Vault root.
var sessionsDir = filepath.FromSlash(agentero.Sessions)

// ErrInvalid is wrapped by every error about a grant file that is missing,
// unreadable, malformed or inconsistent.
var ErrInvalid = errors.New("invalid grant")

// Grant is the on-disk form of a turn's plan that the agentero-context
// server enforces: what this turn may read, within which budget. Its Scope's
// fields are its own in JSON.
type Grant struct {
	Version   int    `json:"version"`
	Vault     string `json:"vault"`
	RuntimeID string `json:"runtimeId"`
	TurnID    string `json:"turnId"`
	Scope
	Fingerprint string    `json:"fingerprint"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Path returns {vault}/.agentero/context-sessions/{runtimeID}/grant.json,
// refusing a runtime id that is not a safe single path segment.
func Path(vaultRoot, runtimeID string) (string, error) {
	if err := CheckRuntimeID(runtimeID); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if !filepath.IsAbs(vaultRoot) {
		return "", fmt.Errorf("%w: vault must be an absolute path", ErrInvalid)
	}
	return filepath.Join(vaultRoot, sessionsDir, runtimeID, File), nil
}

// UsagePath returns the usage log that belongs to a grant file.
func UsagePath(grantPath string) string {
	return filepath.Join(filepath.Dir(grantPath), UsageFile)
}

// Write writes g atomically to its place under g.Vault (a temporary file
// in the same folder, then rename), the file 0600 and the folders 0700, and
// returns its path. A host writes one every turn: the turn id changes, and
// the fingerprint stays the same while the scope does.
func Write(g *Grant) (string, error) {
	if err := g.validate(); err != nil {
		return "", err
	}
	path, err := Path(g.Vault, g.RuntimeID)
	if err != nil {
		return "", err
	}
	// The folders from .agentero down must be real folders of the Vault,
	// made private; the file is replaced atomically, never followed.
	d, err := safefs.OpenDir(filepath.Dir(path), safefs.Private)
	if err != nil {
		return "", fmt.Errorf("creating the grant folder: %w", err)
	}
	defer d.Close()
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return "", err
	}
	data = append(data, '\n')
	if err := d.WriteFile(File, data); err != nil {
		return "", fmt.Errorf("writing the grant: %w", err)
	}
	return path, nil
}

// maxGrant bounds a grant file; a real one is a few kilobytes.
const maxGrant = 4 << 20

// Read reads and validates a grant file. A grant is trusted only in its
// place: the regular file {vault}/.agentero/context-sessions/{runtime-id}/grant.json
// of the vault it names, reached without symbolic links from .agentero
// down, holding one JSON object and nothing after it. Its content must have
// the current version, an absolute vault, a safe runtime id that matches
// its folder, a known mode, a valid budget, and a fingerprint equal to the
// one its scope computes to. Errors wrap ErrInvalid and name no absolute path.
func Read(path string) (*Grant, error) {
	abs, err := filepath.Abs(path)
	if err != nil || !inGrantPlace(abs) {
		return nil, fmt.Errorf("%w: a grant is read only at {vault}/%s/{runtime-id}/%s", ErrInvalid, agentero.Sessions, File)
	}
	f, err := openGrant(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGrant+1))
	if err != nil {
		return nil, fmt.Errorf("%w: grant file cannot be read", ErrInvalid)
	}
	if len(data) > maxGrant {
		return nil, fmt.Errorf("%w: grant is larger than 4 MiB", ErrInvalid)
	}
	var g Grant
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return nil, fmt.Errorf("%w: grant is not valid JSON: %s", ErrInvalid, jsonReason(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: something follows the grant's JSON object", ErrInvalid)
	}
	if err := g.validate(); err != nil {
		return nil, err
	}
	if base := filepath.Base(filepath.Dir(abs)); base != g.RuntimeID {
		return nil, fmt.Errorf("%w: runtimeId %q does not match its folder %q", ErrInvalid, g.RuntimeID, base)
	}
	// The file read must be the grant in the place of the vault it names:
	// a grant inside one vault naming another, or in a folder laid out like
	// a vault elsewhere, is refused.
	own, err := Path(g.Vault, g.RuntimeID)
	if err != nil {
		return nil, err
	}
	if own != abs {
		f2, err := openGrant(own)
		if err != nil {
			return nil, fmt.Errorf("%w: the grant is not in the vault it names", ErrInvalid)
		}
		defer f2.Close()
		a, err1 := f.Stat()
		b, err2 := f2.Stat()
		if err1 != nil || err2 != nil || !os.SameFile(a, b) {
			return nil, fmt.Errorf("%w: the grant is not in the vault it names", ErrInvalid)
		}
	}
	return &g, nil
}

// inGrantPlace reports whether path, absolute and clean, has the shape of
// a grant's place: {vault}/.agentero/context-sessions/{runtime-id}/grant.json.
func inGrantPlace(path string) bool {
	dir, file := filepath.Split(path)
	rt := filepath.Dir(dir)
	sessions := filepath.Dir(rt)
	return file == File && CheckRuntimeID(filepath.Base(rt)) == nil &&
		filepath.Base(sessions) == filepath.Base(sessionsDir) &&
		filepath.Base(filepath.Dir(sessions)) == agentero.Dir
}

// openGrant opens the grant file at path through the safe file layer.
func openGrant(path string) (*safefs.File, error) {
	f, err := safefs.OpenFile(path, os.O_RDONLY)
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: grant file not found", ErrInvalid)
	case errors.Is(err, safefs.ErrLink):
		return nil, fmt.Errorf("%w: the grant's path passes through a symbolic link", ErrInvalid)
	case errors.Is(err, safefs.ErrNotRegular):
		return nil, fmt.Errorf("%w: the grant is not a regular file", ErrInvalid)
	}
	return nil, fmt.Errorf("%w: grant file cannot be read: %w", ErrInvalid, err)
}

func (g *Grant) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, a...)...)
	}
	switch {
	case g.Version != FormatVersion:
		return bad("version %d, want %d", g.Version, FormatVersion)
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
		if err := s.check(); err != nil {
			return bad("%v", err)
		}
	}
	if fp := g.Scope.Fingerprint(); fp != g.Fingerprint {
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
