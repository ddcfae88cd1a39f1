package acp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	researchctx "github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
)

func mcpPlan(fp string) *researchctx.Plan {
	return &researchctx.Plan{
		Vault: "/vault",
		Scope: grant.Scope{
			Mode:    grant.ModeMCP,
			Tools:   grant.Tools(),
			Sources: []grant.Ref{{Kind: grant.KindDirectory, Path: "notes"}},
		},
		Fingerprint: fp,
	}
}

func promptOnlyPlan(fp string) *researchctx.Plan {
	return &researchctx.Plan{Vault: "/vault", Scope: grant.Scope{Mode: grant.ModePromptOnly}, Fingerprint: fp}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name string
		prev *Record
		plan *researchctx.Plan
		want Decision
	}{
		{
			name: "first mcp turn opens a new session with the server, no warm pool",
			plan: mcpPlan("sha256:a"),
			want: Decision{Action: ActionNew, AttachServer: true, Reason: ReasonFirst},
		},
		{
			name: "first prompt-only turn may use the warm pool, no server",
			plan: promptOnlyPlan("sha256:p"),
			want: Decision{Action: ActionNew, UseWarmPool: true, Reason: ReasonFirst},
		},
		{
			name: "record without a session id is no previous session",
			prev: &Record{Fingerprint: "sha256:a"},
			plan: mcpPlan("sha256:a"),
			want: Decision{Action: ActionNew, AttachServer: true, Reason: ReasonFirst},
		},
		{
			name: "same fingerprint resumes with the server attached",
			prev: &Record{SessionID: "s1", Fingerprint: "sha256:a"},
			plan: mcpPlan("sha256:a"),
			want: Decision{Action: ActionResume, ResumeID: "s1", AttachServer: true, Reason: ReasonSameScope},
		},
		{
			name: "same fingerprint prompt-only resumes and does not use the warm pool",
			prev: &Record{SessionID: "s1", Fingerprint: "sha256:p"},
			plan: promptOnlyPlan("sha256:p"),
			want: Decision{Action: ActionResume, ResumeID: "s1", Reason: ReasonSameScope},
		},
		{
			name: "changed fingerprint: new session, resume id dropped, old marked refused, hand-off",
			prev: &Record{SessionID: "s1", Fingerprint: "sha256:a"},
			plan: mcpPlan("sha256:b"),
			want: Decision{Action: ActionNew, DropResumeID: true, MarkRefused: true, Handoff: true, AttachServer: true, Reason: ReasonScopeChanged},
		},
		{
			name: "missing fingerprint: new session, resume id dropped, old marked refused, hand-off",
			prev: &Record{SessionID: "s1"},
			plan: mcpPlan("sha256:a"),
			want: Decision{Action: ActionNew, DropResumeID: true, MarkRefused: true, Handoff: true, AttachServer: true, Reason: ReasonNoFingerprint},
		},
		{
			name: "mcp to prompt-only: new session without server, may use the warm pool",
			prev: &Record{SessionID: "s1", Fingerprint: "sha256:a"},
			plan: promptOnlyPlan("sha256:p"),
			want: Decision{Action: ActionNew, DropResumeID: true, MarkRefused: true, Handoff: true, UseWarmPool: true, Reason: ReasonScopeChanged},
		},
		{
			name: "prompt-only to mcp: new session with the server, never from the warm pool",
			prev: &Record{SessionID: "s1", Fingerprint: "sha256:p"},
			plan: mcpPlan("sha256:a"),
			want: Decision{Action: ActionNew, DropResumeID: true, MarkRefused: true, Handoff: true, AttachServer: true, Reason: ReasonScopeChanged},
		},
		{
			name: "refused session is never resumed, even with the same fingerprint",
			prev: &Record{SessionID: "s1", Fingerprint: "sha256:a", Refused: true},
			plan: mcpPlan("sha256:a"),
			want: Decision{Action: ActionNew, DropResumeID: true, MarkRefused: true, Handoff: true, AttachServer: true, Reason: ReasonRefused},
		},
		{
			name: "plan without fingerprint never resumes",
			prev: &Record{SessionID: "s1", Fingerprint: "sha256:a"},
			plan: mcpPlan(""),
			want: Decision{Action: ActionNew, DropResumeID: true, MarkRefused: true, Handoff: true, AttachServer: true, Reason: ReasonScopeChanged},
		},
		{
			name: "mcp mode without sources gets no server",
			plan: &researchctx.Plan{Scope: grant.Scope{Mode: grant.ModeMCP}, Fingerprint: "sha256:x"},
			want: Decision{Action: ActionNew, Reason: ReasonFirst},
		},
		{
			name: "unknown mode gets neither server nor warm pool",
			plan: &researchctx.Plan{Scope: grant.Scope{Mode: "other", Sources: []grant.Ref{{Path: "x"}}}, Fingerprint: "sha256:x"},
			want: Decision{Action: ActionNew, Reason: ReasonFirst},
		},
		{
			name: "nil plan: new session, nothing attached",
			prev: &Record{SessionID: "s1", Fingerprint: "sha256:a"},
			want: Decision{Action: ActionNew, DropResumeID: true, MarkRefused: true, Handoff: true, Reason: ReasonScopeChanged},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.prev, tt.plan)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

// The rules hold for every combination, not only the rows above.
func TestDecideInvariants(t *testing.T) {
	prevs := []*Record{nil, {}, {SessionID: "s"}, {SessionID: "s", Fingerprint: "a"}, {SessionID: "s", Fingerprint: "b"}, {SessionID: "s", Fingerprint: "a", Refused: true}}
	plans := []*researchctx.Plan{nil, mcpPlan("a"), mcpPlan("b"), promptOnlyPlan("a"), promptOnlyPlan("p"), mcpPlan("")}
	for _, prev := range prevs {
		for _, plan := range plans {
			d := Decide(prev, plan)
			if d.UseWarmPool && d.AttachServer {
				t.Errorf("Decide(%+v, %+v): warm pool with the MCP server", prev, plan)
			}
			if d.UseWarmPool && d.Action != ActionNew {
				t.Errorf("Decide(%+v, %+v): warm pool on resume", prev, plan)
			}
			if d.Action == ActionResume && (plan == nil || prev.Fingerprint != plan.Fingerprint || prev.Refused || plan.Fingerprint == "") {
				t.Errorf("Decide(%+v, %+v): resumes across scopes", prev, plan)
			}
			if d.Handoff != d.MarkRefused || d.MarkRefused != d.DropResumeID {
				t.Errorf("Decide(%+v, %+v): hand-off, refusal and dropped id disagree: %+v", prev, plan, d)
			}
		}
	}
}
