// Package acp is the host side of a research turn over ACP (Agent
// Client Protocol): it decides whether a turn continues the previous agent
// session or opens a new one, attaches the agentero-context MCP server to
// the session, hands the displayed conversation to a replacement session,
// keeps warm sessions by the rules, and collects the turn's sources from the
// usage log.
//
// The decision is pure (Decide); the hand-over block is pure (Handoff); the
// adapter (Start, Agent.Turn) runs an agent process in its own process group
// and speaks ACP with github.com/coder/acp-go-sdk.
//
//	rec, plan → Decide → live | resume | load | new (| warm) → prompt → usage.jsonl → sources
//
// Only the three read-only agentero-context tools may run: the default
// Policy, AllowContextTools, allows a permission request once when Identify
// recognises one of them from the agent's structured fields (never from a
// title) and rejects everything else. A host plugs its own policy in
// AgentOptions.Permission, usually built on Identify and Answer. Where the
// agent offers session modes, each turn pins AgentOptions.SessionMode ("default",
// in which agents ask the host) so the policy is asked at all.
//
// Each tool call streams as one UpdateToolCall, any UpdateToolCallUpdate and
// one UpdateToolCallEnd, whichever route the agent reports it by (tool_call,
// tool_call_update, or a permission request), with its tool, arguments,
// status and, for our tools, the citation URIs it returned; retries and
// errors the agent reports stream as UpdateStatus. Cancelling a turn's
// context, or its timeout, sends session/cancel and waits a bounded time for
// the agent's cancelled stop reason; the session stays resumable.
//
// Rules (docs/contract.md §8): a session remembers the fingerprint it was created under;
// a missing or different fingerprint drops the resume id and opens a new
// session, so an old session never silently reads new sources; a session
// refused a resume never goes back to the warm pool; turns with the MCP
// server never take a warm session, since a warm session was created without
// the server and cannot be given the grant afterwards.
package acp

import (
	researchctx "github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
)

// Record is what a host remembers about a conversation's agent session
// between turns (and across restarts: it is JSON-encodable).
type Record struct {
	// SessionID is the agent's (provider's) session id; empty when there is
	// none to continue.
	SessionID string `json:"sessionId,omitempty"`
	// Fingerprint is the scope fingerprint of the plan the session was
	// created under; empty for sessions from before fingerprints existed.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Refused is set once the session was refused a resume or left behind by
	// a scope change: it is never resumed or put in the warm pool again.
	Refused bool `json:"refused,omitempty"`
}

// Action is how a turn gets its session.
type Action string

// The two actions of a Decision.
const (
	// ActionNew opens a new session (or takes a warm one when allowed).
	ActionNew Action = "new"
	// ActionResume continues the previous session: it is used as is when
	// it is live in this agent process, else resumed or loaded.
	ActionResume Action = "resume"
)

// Decision is what the host does for one turn, given the previous session
// record and the new plan.
type Decision struct {
	Action Action `json:"action"`
	// ResumeID is the session to continue; empty unless Action is resume.
	ResumeID string `json:"resumeId,omitempty"`
	// DropResumeID: the previous session id must be forgotten and never
	// resumed again.
	DropResumeID bool `json:"dropResumeId,omitempty"`
	// MarkRefused: the previous session is marked refused, so it never
	// returns to the warm pool.
	MarkRefused bool `json:"markRefused,omitempty"`
	// UseWarmPool: a warm session may serve this turn (prompt-only turns
	// that open a new session).
	UseWarmPool bool `json:"useWarmPool,omitempty"`
	// Handoff: the conversation shown so far is handed to the new session
	// in its first prompt.
	Handoff bool `json:"handoff,omitempty"`
	// AttachServer: the agentero-context MCP server is attached (a local
	// plan in mcp mode with at least one authorised source).
	AttachServer bool `json:"attachServer,omitempty"`
	// Reason says in a few words why, for logs.
	Reason Reason `json:"reason"`
}

// Reason says in a few words why a Decision is what it is.
type Reason string

// Reasons given in Decision.Reason.
const (
	ReasonFirst         Reason = "no previous session"
	ReasonRefused       Reason = "previous session was refused"
	ReasonNoFingerprint Reason = "previous session has no fingerprint"
	ReasonScopeChanged  Reason = "scope fingerprint changed"
	ReasonSameScope     Reason = "same scope"
)

// Decide decides how a turn gets its session. It does no I/O.
//
//   - No previous session: a new session.
//   - The previous session was refused, has no fingerprint, or was created
//     under a different fingerprint: a new session; the resume id is dropped,
//     the old session is marked refused, and the displayed conversation is
//     handed over.
//   - Same fingerprint: resume the previous session.
//
// Whatever the action, the server is attached only to a plan in mcp mode
// with at least one source, and the warm pool may serve only a new session
// for a prompt-only plan. A nil plan or one without a fingerprint never
// resumes and gets neither server nor warm session.
func Decide(prev *Record, plan *researchctx.Plan) Decision {
	var mode grant.Mode
	fp := ""
	sources := 0
	if plan != nil {
		mode, fp, sources = plan.Mode, plan.Fingerprint, len(plan.Sources)
	}
	d := Decision{AttachServer: mode == grant.ModeMCP && sources > 0}
	switch {
	case prev == nil || prev.SessionID == "":
		d.Action, d.Reason = ActionNew, ReasonFirst
	case prev.Refused:
		d.Action, d.Reason = ActionNew, ReasonRefused
	case prev.Fingerprint == "":
		d.Action, d.Reason = ActionNew, ReasonNoFingerprint
	case prev.Fingerprint != fp:
		d.Action, d.Reason = ActionNew, ReasonScopeChanged
	default:
		d.Action, d.Reason, d.ResumeID = ActionResume, ReasonSameScope, prev.SessionID
	}
	if d.Action == ActionNew && d.Reason != ReasonFirst {
		d.DropResumeID, d.MarkRefused, d.Handoff = true, true, true
	}
	d.UseWarmPool = d.Action == ActionNew && mode == grant.ModePromptOnly
	return d
}
