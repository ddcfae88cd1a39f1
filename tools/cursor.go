package tools

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// cursor is the state of a cut read, handed to the agent as an opaque string.
type cursor struct {
	Target  string `json:"t"`
	Mode    string `json:"m"`
	Page    int    `json:"p,omitempty"`
	Section string `json:"s,omitempty"`
	Region  string `json:"r,omitempty"`
	Offset  int    `json:"o"`
	Scope   string `json:"f"` // fingerprint prefix: a cursor is valid for its grant only
	// A paper_relations cursor: Tool is cursorRelations, Target the
	// paper, Mode the kind, Library the filter and Offsets where each
	// list (references, cited by, related) goes on.
	Tool    string `json:"k,omitempty"`
	Library bool   `json:"b,omitempty"`
	Offsets []int  `json:"l,omitempty"`
}

// cursorRelations marks a cursor of paper_relations; a cursor of
// context_read has no tool.
const cursorRelations = "rel"

func encodeCursor(c cursor, fingerprint string) string {
	c.Scope = scopeTag(fingerprint)
	b, _ := json.Marshal(c)
	return "c1." + base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s, fingerprint string) (cursor, error) {
	var c cursor
	bad := fmt.Errorf("%w: cursor is not one this server handed out", ErrInvalidArgument)
	rest, ok := strings.CutPrefix(s, "c1.")
	if !ok || len(rest) > 4096 {
		return c, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Scope != scopeTag(fingerprint) || c.Offset < 0 || c.Target == "" {
		return c, bad
	}
	return c, nil
}

func scopeTag(fp string) string {
	fp = strings.TrimPrefix(fp, "sha256:")
	return fp[:min(12, len(fp))]
}
