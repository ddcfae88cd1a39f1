package grant

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Kind is the kind of a granted source. The Vault's own kinds are
// KindPaper, KindDirectory and KindFile; a connector registers its own
// (see package sources), and a server refuses a kind it cannot open.
type Kind string

// The Vault's kinds of source.
const (
	KindPaper     Kind = "paper"     // a paper unit: a folder under papers/
	KindDirectory Kind = "directory" // a folder of the Vault
	KindFile      Kind = "file"      // one file of the Vault (text, Markdown or a loose PDF)
)

// Ref names one source the agent may expand in a turn: a paper unit, a
// directory or a file by vault-relative path, or a connector's source by
// its kind, its path (the name a host and the model use for it) and an
// opaque Config the server re-opens it from.
type Ref struct {
	Kind  Kind   `json:"kind"`
	Path  string `json:"path"`
	Title string `json:"title,omitempty"`
	// Config is a connector's JSON configuration, stored in the grant so
	// the server process can re-open the source; the Vault's kinds have
	// none. It is part of the fingerprint.
	Config json.RawMessage `json:"config,omitempty"`
}

// Mode says whether the agent can expand the context in a turn.
type Mode string

// The two modes of a scope.
const (
	// ModeMCP: the agentero-context server is attached and the agent may
	// call the tools over the allowed sources.
	ModeMCP Mode = "mcp"
	// ModePromptOnly: the agent has only the prompt (a remote session, or
	// nothing could be authorised).
	ModePromptOnly Mode = "prompt-only"
)

// ServerName is the name of the MCP server a host attaches for mcp turns.
const ServerName = "agentero-context"

// Tool names served by the agentero-context MCP server.
const (
	ToolSearch    = "context_search"
	ToolRead      = "context_read"
	ToolRelations = "paper_relations"
)

// Tools returns the sorted tool list of an mcp-mode scope, a new slice
// each call.
func Tools() []string { return []string{ToolRead, ToolSearch, ToolRelations} }

// Scope is what a turn may read: the sources, the tools, the budget and
// the mode. A Plan and a Grant embed it (its fields are theirs in JSON), and
// its Fingerprint decides whether an agent session may be reused.
type Scope struct {
	Sources []Ref    `json:"sources"`
	Tools   []string `json:"tools"`
	Budget  Budget   `json:"budget"`
	Mode    Mode     `json:"mode"`
}

// Covers reports whether the vault-relative path p lies in one of the
// scope's sources: it is a source's path, or below a source that is not a
// file.
func (s *Scope) Covers(p string) bool {
	for _, r := range s.Sources {
		switch {
		case p == r.Path:
			return true
		case r.Kind == KindFile:
		case r.Path == "." || strings.HasPrefix(p, r.Path+"/"):
			return true
		}
	}
	return false
}

// sortedRefs returns the sources ordered by kind, then path.
func sortedRefs(src []Ref) []Ref {
	out := append([]Ref(nil), src...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// canonicalConfig returns a connector config in one canonical form (object
// keys sorted, no insignificant space, numbers as written), so two hosts
// that encode the same config differently get the same fingerprint.
func canonicalConfig(raw json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "", nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("config is not valid JSON: %s", jsonReason(err))
	}
	if dec.More() {
		return "", fmt.Errorf("something follows the config's JSON value")
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// CheckRuntimeID reports whether id is a safe single path segment: 1–128
// characters from [A-Za-z0-9._-], not "." or "..". It names a folder under
// .agentero/context-sessions/.
func CheckRuntimeID(id string) error {
	if id == "" || len(id) > 128 || id == "." || id == ".." {
		return fmt.Errorf("runtimeId %q is not a safe folder name", id)
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("runtimeId %q is not a safe folder name (allowed: letters, digits, '.', '_', '-')", id)
		}
	}
	return nil
}

// check reports what is wrong with a grant's source: an empty path, a kind
// that is not a plain name, a Vault kind with a config, or a config that is
// not one JSON value. Whether a connector kind can be opened is for the
// server to say.
func (r Ref) check() error {
	if r.Path == "" {
		return fmt.Errorf("source with an empty path")
	}
	if !r.Kind.Valid() {
		return fmt.Errorf("source %q has an invalid kind %q", r.Path, r.Kind)
	}
	if len(r.Config) == 0 {
		return nil
	}
	switch r.Kind {
	case KindPaper, KindDirectory, KindFile:
		return fmt.Errorf("source %q of kind %s has a config", r.Path, r.Kind)
	}
	if _, err := canonicalConfig(r.Config); err != nil {
		return fmt.Errorf("source %q: %v", r.Path, err)
	}
	return nil
}

// Valid reports whether k is a plain kind name, as a grant's sources must
// have: 1–64 characters from [a-z0-9._-], starting with a letter. A
// connector registers its kind under such a name.
func (k Kind) Valid() bool {
	if k == "" || len(k) > 64 || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for _, c := range []byte(k) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
