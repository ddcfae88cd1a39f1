package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/examples/internal/demo"
	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/sources"
)

// agentReport is what an -agent turn did, for -json.
type agentReport struct {
	Command    []string              `json:"command"`
	Decision   acp.Decision          `json:"decision"`
	How        acp.How               `json:"how"`
	SessionID  string                `json:"sessionId"`
	Refusal    string                `json:"refusal,omitempty"`
	Mode       acp.SessionModeReport `json:"mode"`
	Guard      acp.Guard             `json:"guard"`
	StopReason string                `json:"stopReason"`
	Cancelled  bool                  `json:"cancelled,omitempty"`
	Message    string                `json:"message"`
	ToolCalls  []acp.ToolCall        `json:"toolCalls"`
	Status     []string              `json:"status,omitempty"`
	Sources    []string              `json:"sources"`
}

// errInterrupted ends the run after a cancelled turn; the line saying so is
// already printed.
var errInterrupted = errors.New("interrupted")

// agentCommand and splitArgs parse the -agent value (package demo, shared
// with the other example hosts).
var (
	agentCommand = demo.AgentCommand
	splitArgs    = demo.SplitArgs
)

// sessionState is the demo's memory of agent sessions between runs, as a
// host keeps it per conversation: one record per agent command. It lives
// beside the grant, in the folder the SDK owns.
type sessionState map[string]acp.Record

func statePath(grantPath string) string {
	return filepath.Join(filepath.Dir(grantPath), "quickchat-sessions.json")
}

func loadState(path string) sessionState {
	st := sessionState{}
	data, err := os.ReadFile(path)
	if err == nil {
		// A damaged file only costs a resume.
		_ = json.Unmarshal(data, &st)
	}
	return st
}

func (st sessionState) save(path string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// agentTurn sends the turn to a real ACP agent: the plan's prompt block and
// the question, with the agentero-context server attached in mcp mode,
// streaming the agent's answer and tool calls.
func (r *demoRun) agentTurn(ctx context.Context, argv []string, stderr io.Writer) error {
	o := r.out
	key := strings.Join(argv, " ")
	o.step("5", "The turn, sent to a real agent over ACP: "+key)
	exe, args, err := mcp.ServerCommandLine(r.grantPath)
	if err != nil {
		return err
	}
	sp := statePath(r.grantPath)
	state := loadState(sp)
	var prev *acp.Record
	if rec, ok := state[key]; ok {
		prev = &rec
	}
	rep := &agentReport{Command: argv, Decision: acp.Decide(prev, r.plan), ToolCalls: []acp.ToolCall{}}
	r.agent = rep
	d := rep.Decision
	what := "no MCP server (prompt-only)"
	if d.AttachServer {
		what = grant.ServerName + " attached"
	}
	o.kv("session", fmt.Sprintf("%s (%s) · %s", d.Action, d.Reason, what))

	// The strict default policy (acp.AllowContextTools) answers the
	// agent's permission requests: only our three tools run.
	a, err := acp.Start(ctx, acp.AgentOptions{
		Name: filepath.Base(argv[0]), Command: argv[0], Args: argv[1:], Stderr: stderr,
		AuthMethod: r.cfg.agentAuth, TurnTimeout: r.cfg.turnLimit,
	})
	if err != nil {
		return err
	}
	defer a.Stop()

	st := &streamer{o: o, rep: rep}
	res, turnErr := a.Turn(ctx, acp.TurnRequest{
		Prev:     prev,
		Plan:     r.plan,
		Server:   acp.Server{Command: exe, Args: args},
		Prompt:   r.cfg.ask,
		OnUpdate: st.update,
	})
	st.end()
	if res != nil {
		rep.How, rep.SessionID, rep.StopReason = res.How, res.Record.SessionID, res.StopReason
		rep.Mode, rep.Guard, rep.Cancelled, rep.ToolCalls = res.SessionMode, res.Guard, res.Cancelled, res.ToolCalls
		rep.Sources = res.Sources
		state[key] = res.Record
		// The demo's memory is a convenience: failing to keep it costs the
		// next run a resume, not this turn.
		_ = state.save(sp)
		line := fmt.Sprintf("%s session %s", res.How, res.Record.SessionID)
		if res.Refusal != nil {
			rep.Refusal = res.Refusal.Error()
			line += " (the previous one could not be continued: " + res.Refusal.Error() + ")"
		}
		if res.SessionMode.Problem != "" {
			o.kv("mode", "not pinned: "+res.SessionMode.Problem)
		} else if res.SessionMode.Set {
			o.kv("mode", "set to "+res.SessionMode.Current+" (the agent asks before each tool call)")
		}
		if res.Guard.Kept {
			o.kv("guard", "only "+grant.ServerName+" tools read the library: "+res.Guard.How)
		} else {
			o.kv("guard", o.red("NOT KEPT: other tools of the agent may read files: "+res.Guard.Problem))
		}
		if res.StopReason != "" {
			line += " · stop: " + res.StopReason
		}
		o.kv("ended", line)
	}
	if rep.Sources == nil {
		rep.Sources = []string{}
	}
	if errors.Is(turnErr, acp.ErrCancelled) {
		if ctx.Err() != nil {
			fmt.Fprintln(o.w, "interrupted: the turn was cancelled")
			return errInterrupted
		}
		// The turn timeout: say so in one line too.
		fmt.Fprintln(o.w, "timed out: the turn was cancelled after "+r.cfg.turnLimit.String())
		return errInterrupted
	}
	return turnErr
}

// streamer prints a turn's streamed updates as they arrive and records them.
type streamer struct {
	o   *printer
	rep *agentReport

	mu      sync.Mutex
	inText  bool            // in the middle of a line of the agent's answer
	allowed map[string]bool // calls whose approval was shown
}

func (s *streamer) update(u acp.Update) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.o
	switch u.Kind {
	case acp.UpdateMessage:
		s.rep.Message += u.Text
		text := indentAnswer(u.Text)
		if !s.inText {
			fmt.Fprint(o.w, "   "+o.bold("agent")+" ")
			s.inText = true
		}
		fmt.Fprint(o.w, text)
	case acp.UpdateToolCall:
		s.endLine()
		c := u.Call
		line := "   " + o.cyan("→ "+callName(c))
		if shownArgs(c.Args) {
			line += " " + demo.Clip(string(c.Args), 120)
		}
		if c.Permission == "allowed" {
			line += "  " + o.dim("(allowed)")
			s.shown(c.ID)
		}
		o.line(line)
	case acp.UpdateToolCallUpdate:
		// An agent may send several updates after the approval (its
		// arguments, then its progress): the approval is shown once, with
		// the arguments when the start line had none yet.
		if c := u.Call; c.Permission == "allowed" && !s.allowed[c.ID] {
			s.shown(c.ID)
			s.endLine()
			line := demo.Clip(callName(c), 60)
			if shownArgs(c.Args) {
				line += " " + demo.Clip(string(c.Args), 120)
			}
			o.line("     " + o.dim(line+" allowed by the policy"))
		}
	case acp.UpdateToolCallEnd:
		s.endLine()
		c := u.Call
		// Calls may overlap: the end names its call.
		name := demo.Clip(callName(c), 60)
		line := "     " + o.dim("← "+name+" "+string(c.Status))
		if c.Status == acp.StatusDenied {
			line = "     " + o.red("← "+name+" denied by the policy") + o.dim(" (only "+grant.ServerName+" tools may run)")
		}
		if len(c.URIs) > 0 {
			line += o.dim(" · " + strings.Join(c.URIs, " "))
		}
		o.line(line)
	case acp.UpdateStatus:
		s.rep.Status = append(s.rep.Status, u.Text)
		s.endLine()
		o.line("   " + o.dim("agent status: "+demo.Clip(u.Text, 160)))
	}
}

// shown notes that the approval of call id was printed. Called with s.mu
// held.
func (s *streamer) shown(id string) {
	if s.allowed == nil {
		s.allowed = map[string]bool{}
	}
	s.allowed[id] = true
}

// shownArgs reports whether a call's arguments are worth printing: an
// agent that streams its arguments first announces the call with none.
func shownArgs(args []byte) bool {
	a := strings.TrimSpace(string(args))
	return a != "" && a != "{}" && a != "null"
}

// callName is how a call is shown (package demo).
var callName = demo.CallName

// endLine ends a line of the agent's answer before other output.
func (s *streamer) endLine() {
	if s.inText {
		s.o.line("")
		s.inText = false
	}
}

func (s *streamer) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLine()
}

// indentAnswer indents every line of a piece of the agent's streamed
// answer after the first, at each line break a terminal may honour
// (sources.SplitLines), so a CR or U+2028 in the answer cannot start an
// unindented line.
func indentAnswer(s string) string {
	out := strings.Join(sources.SplitLines(s), "\n     ")
	if r, _ := utf8.DecodeLastRuneInString(s); sources.IsLineBreak(r) {
		out += "\n     "
	}
	return out
}
