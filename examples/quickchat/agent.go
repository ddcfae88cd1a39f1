package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/mcp"
	"github.com/researchctx/researchctx/session"
)

// agentReport is what an -agent turn did, for -json.
type agentReport struct {
	Command    []string         `json:"command"`
	Decision   session.Decision `json:"decision"`
	How        session.How      `json:"how"`
	SessionID  string           `json:"sessionId"`
	StopReason string           `json:"stopReason"`
	Message    string           `json:"message"`
	ToolCalls  []agentToolCall  `json:"toolCalls"`
	Sources    []string         `json:"sources"`
}

// agentToolCall is one tool call the agent reported.
type agentToolCall struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status,omitempty"`
}

// agentCommand splits an -agent value into a command line and checks that
// the command can be found.
func agentCommand(s string) ([]string, error) {
	args, err := splitArgs(s)
	if err != nil {
		return nil, fmt.Errorf("-agent: %v", err)
	}
	if len(args) == 0 {
		return nil, errors.New("-agent: empty command")
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		return nil, fmt.Errorf("agent command %q not found", args[0])
	}
	return args, nil
}

// splitArgs splits a command line into words the way a shell does for
// simple cases: blanks separate words; single quotes keep everything
// literally; double quotes keep blanks and honour backslash before " and \;
// a backslash outside quotes escapes the next character. No expansion of
// any kind is done.
func splitArgs(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		inArg bool
		quote rune
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\'):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inArg = c, true
		case c == '\\':
			if i+1 == len(rs) {
				return nil, errors.New("trailing backslash")
			}
			i++
			cur.WriteRune(rs[i])
			inArg = true
		case c == ' ' || c == '\t' || c == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(c)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, nil
}

// sessionState is the demo's memory of agent sessions between runs, as a
// host keeps it per conversation: one record per agent command. It lives
// beside the grant, in the folder the SDK owns.
type sessionState map[string]session.Record

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
	exe, args, err := mcp.Command(r.grantPath)
	if err != nil {
		return err
	}
	sp := statePath(r.grantPath)
	state := loadState(sp)
	var prev *session.Record
	if rec, ok := state[key]; ok {
		prev = &rec
	}
	rep := &agentReport{Command: argv, Decision: session.Decide(prev, r.plan), ToolCalls: []agentToolCall{}}
	r.agent = rep
	d := rep.Decision
	what := "no MCP server (prompt-only)"
	if d.AttachServer {
		what = researchctx.ServerName + " attached"
	}
	o.kv("session", fmt.Sprintf("%s (%s) · %s", d.Action, d.Reason, what))

	a, err := session.Start(ctx, session.AgentConfig{Name: filepath.Base(argv[0]), Command: argv[0], Args: argv[1:], Stderr: stderr, AuthMethod: r.cfg.agentAuth})
	if err != nil {
		return err
	}
	defer a.Stop()

	st := &streamer{o: o, rep: rep}
	res, turnErr := a.Turn(ctx, session.TurnRequest{
		Prev:     prev,
		Plan:     r.plan,
		Server:   session.Server{Command: exe, Args: args},
		Prompt:   r.cfg.ask,
		OnUpdate: st.update,
	})
	st.end()
	if res != nil {
		rep.How, rep.SessionID, rep.StopReason = res.How, res.Record.SessionID, res.StopReason
		rep.Sources = res.Sources
		state[key] = res.Record
		// The demo's memory is a convenience: failing to keep it costs the
		// next run a resume, not this turn.
		_ = state.save(sp)
		line := fmt.Sprintf("%s session %s", res.How, res.Record.SessionID)
		if res.Refusal != nil {
			line += " (the previous one could not be continued: " + res.Refusal.Error() + ")"
		}
		if res.StopReason != "" {
			line += " · stop: " + res.StopReason
		}
		o.kv("ended", line)
	}
	if rep.Sources == nil {
		rep.Sources = []string{}
	}
	return turnErr
}

// streamer prints a turn's streamed updates as they arrive and records them.
type streamer struct {
	o   *printer
	rep *agentReport

	mu     sync.Mutex
	inText bool // in the middle of a line of the agent's answer
}

func (s *streamer) update(u session.Update) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.o
	switch u.Kind {
	case session.UpdateMessage:
		s.rep.Message += u.Text
		text := strings.ReplaceAll(u.Text, "\n", "\n     ")
		if !s.inText {
			fmt.Fprint(o.w, "   "+o.bold("agent")+" ")
			s.inText = true
		}
		fmt.Fprint(o.w, text)
	case session.UpdateToolCall:
		s.endLine()
		s.rep.ToolCalls = append(s.rep.ToolCalls, agentToolCall{ID: u.ToolCallID, Title: u.Text, Status: u.Status})
		status := ""
		if u.Status != "" {
			status = "  " + o.dim(u.Status)
		}
		o.line("   " + o.cyan("→ "+u.Text) + status)
	case session.UpdateToolCallUpdate:
		for i := range s.rep.ToolCalls {
			if c := &s.rep.ToolCalls[i]; c.ID == u.ToolCallID && u.Status != "" {
				c.Status = u.Status
				if u.Text != "" {
					c.Title = u.Text
				}
				s.endLine()
				o.line("     " + o.dim("← "+u.Status))
			}
		}
	}
}

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
