package acp

import (
	"errors"
	"fmt"
	"sync"

	researchctx "github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/grant"
)

// Errors of WarmPool.Put.
var (
	// ErrPoolRefused: the session was refused a resume or left behind by a
	// scope change; it never goes back to the pool.
	ErrPoolRefused = errors.New("refused session cannot be pooled")
	// ErrPoolServer: the session has the agentero-context server attached;
	// a warm session must have been created without it.
	ErrPoolServer = errors.New("session with the MCP server cannot be pooled")
	// ErrPoolOccupied: the pool already holds a warm session for this agent
	// and working directory.
	ErrPoolOccupied = errors.New("a warm session for this agent and cwd is already pooled")
	// ErrPoolStopped: the session's agent has stopped.
	ErrPoolStopped = errors.New("session's agent has stopped")
)

// PoolKey names a warm-pool slot: an agent (AgentOptions.Name) and a session
// working directory (the Vault root).
type PoolKey struct {
	Agent string
	Cwd   string
}

// WarmPool keeps at most one warm session per agent and working directory,
// for prompt-only turns. It enforces the rules of docs/contract.md §8: a session with
// the MCP server is never pooled (it holds a grant), a refused session is
// never pooled or handed out, and a turn in mcp mode never takes from the
// pool (a warm session was created without the server and cannot be given
// the grant afterwards). The zero WarmPool is ready to use and safe for
// concurrent use.
type WarmPool struct {
	mu    sync.Mutex
	slots map[PoolKey]*Session
}

// Key returns the slot a session belongs to.
func Key(s *Session) PoolKey {
	return PoolKey{Agent: s.agent.cfg.Name, Cwd: s.cwd}
}

// Put offers a session to the pool. It is refused (and stays the caller's)
// when it was refused, has the server attached, its agent stopped, or the
// slot is taken.
func (p *WarmPool) Put(s *Session) error {
	if s == nil {
		return fmt.Errorf("%w: nil session", ErrPoolStopped)
	}
	switch {
	case s.Refused():
		return ErrPoolRefused
	case s.server:
		return ErrPoolServer
	case s.agent.checkRunning() != nil:
		return ErrPoolStopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := Key(s)
	if cur := p.slots[k]; cur != nil && cur != s {
		return ErrPoolOccupied
	}
	if p.slots == nil {
		p.slots = map[PoolKey]*Session{}
	}
	p.slots[k] = s
	return nil
}

// Take removes and returns the warm session of the slot for a turn with the
// plan, or nil: always nil unless the plan is prompt-only; a session found
// refused or dead is dropped.
func (p *WarmPool) Take(k PoolKey, plan *researchctx.Plan) *Session {
	if plan == nil || plan.Mode != grant.ModePromptOnly {
		return nil
	}
	p.mu.Lock()
	s := p.slots[k]
	delete(p.slots, k)
	p.mu.Unlock()
	if s == nil || s.Refused() || s.server || s.agent.checkRunning() != nil {
		return nil
	}
	return s
}

// Len returns the number of pooled sessions.
func (p *WarmPool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.slots)
}

// Drain empties the pool and returns what it held (e.g. to stop their
// agents when the host shuts down).
func (p *WarmPool) Drain() []*Session {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*Session, 0, len(p.slots))
	for k, s := range p.slots {
		out = append(out, s)
		delete(p.slots, k)
	}
	return out
}
