package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// SessionModeReport says how the session mode of a turn was pinned
// (AgentOptions.SessionMode).
type SessionModeReport struct {
	Want      string   `json:"want,omitempty"`      // the mode asked for; empty with KeepSessionMode
	Current   string   `json:"current,omitempty"`   // the agent's mode when the prompt was sent
	Available []string `json:"available,omitempty"` // the modes the agent offers
	Set       bool     `json:"set,omitempty"`       // session/set_mode was sent and accepted
	// Problem says why the wanted mode is not in force: the agent offers
	// no session modes, does not offer this one, or refused to switch.
	// Empty when it is (or KeepMode is set).
	Problem string `json:"problem,omitempty"`
}

// pinMode switches the session to AgentOptions.SessionMode when the agent offers
// modes and is in another one.
func (a *Agent) pinMode(ctx context.Context, s *Session) SessionModeReport {
	s.mu.Lock()
	rep := SessionModeReport{Want: a.cfg.SessionMode, Current: s.mode, Available: slices.Clone(s.modes)}
	s.mu.Unlock()
	switch {
	case a.cfg.KeepSessionMode:
		rep.Want = ""
		return rep
	case len(rep.Available) == 0:
		rep.Problem = "the agent offers no session modes"
		return rep
	case !slices.Contains(rep.Available, rep.Want):
		rep.Problem = fmt.Sprintf("the agent offers no mode %q (it offers %s)", rep.Want, strings.Join(rep.Available, ", "))
		return rep
	case rep.Current == rep.Want:
		return rep
	}
	mctx, cancel := context.WithTimeout(ctx, a.cfg.OpenTimeout)
	defer cancel()
	if _, err := a.conn.SetSessionMode(mctx, sdk.SetSessionModeRequest{SessionId: s.id, ModeId: sdk.SessionModeId(rep.Want)}); err != nil {
		rep.Problem = a.callError(ctx, mctx, "session/set_mode", err).Error()
		return rep
	}
	s.mu.Lock()
	s.mode = rep.Want
	s.mu.Unlock()
	rep.Current, rep.Set = rep.Want, true
	return rep
}
