// Package researchctx gives a coding agent read-only, per-turn, budgeted
// access to a researcher's paper library (the Vault), and tells the host app
// which sources the agent actually used.
//
// A host turns each chat turn's selection, current paper and @-mentions into
// a Request. Resolve turns the Request into a Plan: the minimal evidence to
// put in the prompt, the sources the agent may expand, a Budget and a
// fingerprint of that scope. The host writes the Plan's Grant next to the
// Vault (WriteGrant), attaches the stdio MCP server of package mcp to the
// agent session, and after the turn reads the sources the agent used back
// from the usage log (usage.Read).
//
//	Request → Resolve → Plan → Grant (file) → MCP server → tools → usage.jsonl → sources
//
// A changed fingerprint means a changed scope: the host opens a new agent
// session rather than silently widening an old one (see package acp).
package researchctx

import "github.com/researchctx/researchctx/grant"

// Request is what a host knows about one turn. It is JSON-encodable with
// camelCase fields so a TypeScript front end can build it; mirror it as
//
//	interface Request {
//	  vault: string;            // absolute Vault root
//	  runtimeId: string;        // one per running conversation: names the grant folder
//	  turnId: string;           // unique per turn
//	  remote?: boolean;         // the agent runs on another machine
//	  currentPaper?: string;    // paper ref, e.g. "papers/1706.03762"
//	  selections?: Selection[];
//	  mentions?: string[];      // vault-relative paths from @-mentions, or "kind:name" for a connector's
//	  budget?: BudgetOverrides; // optional per-field overrides
//	}
//	interface Selection { text: string; path?: string; page?: number; section?: string; region?: string }
//
// RuntimeID names the conversation's grant folder,
// .agentero/context-sessions/{runtimeId}/: one per running conversation (a
// chat panel, a side bar), kept for all its turns, so each turn's grant
// replaces the last and the agent session's server keeps reading the same
// file. Two conversations open at once need two runtime ids, or one would
// overwrite the other's grant and fail its server closed. A new id per turn
// would leave a folder per turn behind (see usage.Clean for stale ones).
// It is letters, digits, '.', '_' and '-', at most 128 characters.
type Request struct {
	Vault        string                 `json:"vault"`
	RuntimeID    string                 `json:"runtimeId"`
	TurnID       string                 `json:"turnId"`
	Remote       bool                   `json:"remote,omitempty"`
	CurrentPaper string                 `json:"currentPaper,omitempty"`
	Selections   []Selection            `json:"selections,omitempty"`
	Mentions     []string               `json:"mentions,omitempty"`
	Budget       *grant.BudgetOverrides `json:"budget,omitempty"`
}

// Selection is text the user selected, with where it came from. Path is the
// vault-relative file the text is from (a paper's PDF, a note), or a
// connector's document as "kind:name" (see Resolver.Registry); when it is
// empty the text is taken to come from the current paper. Page is 1-based
// and physical; Section is a heading label; Region a layout id.
type Selection struct {
	Text    string `json:"text"`
	Path    string `json:"path,omitempty"`
	Page    int    `json:"page,omitempty"`
	Section string `json:"section,omitempty"`
	Region  string `json:"region,omitempty"`
}
