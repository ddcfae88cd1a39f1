package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// Errors callers may branch on.
var (
	// ErrAgent is wrapped by errors starting or talking to the agent.
	ErrAgent = errors.New("agent error")
	// ErrStopped is returned by calls on an agent that was stopped or whose
	// process exited.
	ErrStopped = errors.New("agent stopped")
)

// The timeouts of an AgentOptions whose field is zero.
const (
	defaultInitTimeout   = 30 * time.Second
	defaultOpenTimeout   = 30 * time.Second
	defaultResumeTimeout = 10 * time.Second
	defaultStopTimeout   = 3 * time.Second
	defaultCancelWait    = 5 * time.Second
)

// DefaultSessionMode is the session mode pinned when AgentOptions.SessionMode is empty.
const DefaultSessionMode = "default"

// AgentOptions says how to run an ACP agent.
type AgentOptions struct {
	// Name identifies the agent (e.g. "gemini"); it keys the warm pool.
	Name string
	// Command and Args start the agent speaking ACP on stdio.
	Command string
	Args    []string
	// Env is the agent's whole environment; nil means the host's.
	Env []string
	// Dir is the agent process's working directory; empty means the host's.
	// Sessions get the Vault root as their cwd whatever this is.
	Dir string
	// Stderr receives the agent's stderr; nil discards it.
	Stderr io.Writer
	// AuthMethod, when set, is passed to authenticate after initialize
	// (e.g. "openai-api-key" for codex-acp).
	AuthMethod string
	// Permission answers the agent's permission requests; nil means
	// AllowContextTools, which allows only the three agentero-context tools.
	Permission Policy
	// SessionMode is the session mode pinned on every session the turn runs in,
	// when the agent offers session modes: the mode in which the agent asks
	// the host before it runs a tool (but for read-only ones: see Guard).
	// Empty means DefaultSessionMode ("default", the name gemini-cli and Claude
	// Code give it). Claude Code otherwise starts in a mode where its own
	// classifier approves calls and the Permission policy is never asked.
	SessionMode string
	// KeepSessionMode leaves the session mode as the agent chose it.
	KeepSessionMode bool
	// KeepTools leaves an agent's own tools as its configuration has
	// them: Codex is then not started with CodexOverrides, and Claude
	// Code's sessions keep its built-in tools (see Guard).
	KeepTools bool
	// RequireGuard refuses to run an agent that is not kept to the
	// agentero-context tools (Guard): Start fails with ErrUnguarded when
	// that is known from initialize, Turn when it is known from the
	// session mode, before the prompt is sent.
	RequireGuard bool
	// TurnTimeout bounds a turn's prompt; when it passes, the turn is
	// cancelled as if by the caller. Zero means no limit beyond the
	// caller's context. TurnRequest.Timeout overrides it.
	TurnTimeout time.Duration
	// CancelWait bounds how long a cancelled turn waits for the agent to
	// confirm with the stop reason cancelled; zero means defaultCancelWait.
	CancelWait time.Duration
	// Logger receives the ACP connection's diagnostics; nil discards them.
	Logger *slog.Logger

	// Timeouts; zero means the default (30 s, 30 s, 10 s and 3 s).
	InitTimeout   time.Duration // initialize (and authenticate)
	OpenTimeout   time.Duration // session/new
	ResumeTimeout time.Duration // session/resume or session/load, each
	StopTimeout   time.Duration // grace between SIGTERM and SIGKILL on Stop
}

func (c *AgentOptions) withDefaults() {
	if c.InitTimeout <= 0 {
		c.InitTimeout = defaultInitTimeout
	}
	if c.OpenTimeout <= 0 {
		c.OpenTimeout = defaultOpenTimeout
	}
	if c.ResumeTimeout <= 0 {
		c.ResumeTimeout = defaultResumeTimeout
	}
	if c.StopTimeout <= 0 {
		c.StopTimeout = defaultStopTimeout
	}
	if c.CancelWait <= 0 {
		c.CancelWait = defaultCancelWait
	}
	if c.SessionMode == "" {
		c.SessionMode = DefaultSessionMode
	}
	if c.Name == "" {
		c.Name = c.Command
	}
}

// Capabilities is what the agent advertised at initialize that the session
// lifecycle depends on.
type Capabilities struct {
	Resume bool // sessionCapabilities.resume: session/resume
	Load   bool // agentCapabilities.loadSession: session/load
	Close  bool // sessionCapabilities.close: session/close
	// AgentName and AgentVersion are from agentInfo, when sent.
	AgentName    string
	AgentVersion string
}

// Agent is a running ACP agent process and its connection. It is safe for
// concurrent use; turns of different sessions may run at once.
type Agent struct {
	cfg    AgentOptions
	cmd    *exec.Cmd
	pgid   int
	stdin  io.Closer // our end of the agent's stdin
	stdout io.Closer // our end of the agent's stdout
	conn   *sdk.ClientSideConnection
	caps   Capabilities
	guard  Guard // as known from initialize
	// cleanup removes what Start wrote for the agent (gemini-cli's
	// policy file) once the process is gone; nil when nothing.
	cleanup func()
	client  *client
	exited  chan struct{} // closed when the process has been waited for

	mu       sync.Mutex
	sessions map[string]*Session // live sessions opened on this connection
	stopped  bool
	stopOnce sync.Once
	stopErr  error
}

// Start starts the agent in its own process group and initializes ACP
// (protocol version 1, no file-system or terminal capabilities offered),
// then authenticates if the config names a method. On any error the process
// group is stopped before Start returns.
//
// When initialize names the agent codex-acp or gemini-cli, Start stops it
// and starts it again with the settings that keep it to our tools appended
// to its arguments (CodexOverrides; GeminiPolicy as a --policy file),
// unless KeepTools is set or they are there already: both read their
// configuration only at start-up, and the agent is identified by what it
// says it is, not by the command that runs it.
func Start(ctx context.Context, cfg AgentOptions) (*Agent, error) {
	cfg.withDefaults()
	if cfg.Command == "" {
		return nil, fmt.Errorf("%w: no agent command", ErrAgent)
	}
	a, err := launch(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if !cfg.KeepTools {
		var (
			args    []string
			missing bool
			cleanup func()
		)
		switch a.caps.AgentName {
		case agentCodex:
			args, missing = codexArgs(cfg.Args)
		case agentGemini:
			args, missing, cleanup, err = geminiArgs(cfg.Args)
			if err != nil {
				_ = a.Stop()
				return nil, err
			}
		}
		if missing {
			if err := a.Stop(); err != nil {
				return nil, err
			}
			cfg.Args = args
			if a, err = launch(ctx, cfg); err != nil {
				if cleanup != nil {
					cleanup()
				}
				return nil, fmt.Errorf("restarting %s with the settings that make its own tools ask: %w", cfg.Name, err)
			}
			a.cleanup = cleanup
		}
	}
	a.guard = a.startGuard()
	if cfg.RequireGuard && a.guard.Problem != "" {
		_ = a.Stop()
		return nil, fmt.Errorf("%w: %s", ErrUnguarded, a.guard.Problem)
	}
	if a.guard.Problem != "" {
		a.logger().Warn(guardWarning(a.guard), "agent", a.caps.AgentName)
	}
	return a, nil
}

// launch starts the agent process and initializes the connection.
func launch(ctx context.Context, cfg AgentOptions) (*Agent, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAgent, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("%w: %w", ErrAgent, err)
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir, cmd.Env = cfg.Dir, cfg.Env
	// Agents report retries and failures on stderr (gemini-cli: "Attempt 1
	// failed ... Retrying"): such lines become status events of the
	// running turns, and everything still reaches cfg.Stderr.
	status := &statusWriter{w: cfg.Stderr}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, status
	// Its own process group: agents re-launch children (and spawn MCP
	// servers), and Stop must reach all of them.
	ownGroup(cmd)
	// A child that keeps stderr open must not hold Wait forever.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("%w: starting %s: %w", ErrAgent, cfg.Name, err)
	}
	// The child holds its ends now; keeping ours open would hide its exit.
	inR.Close()
	outW.Close()
	a := &Agent{
		cfg:      cfg,
		cmd:      cmd,
		pgid:     cmd.Process.Pid,
		stdin:    inW,
		stdout:   outR,
		exited:   make(chan struct{}),
		sessions: map[string]*Session{},
	}
	go func() {
		_ = cmd.Wait()
		close(a.exited)
	}()
	a.client = &client{trackers: map[sdk.SessionId]*tracker{}, permission: cfg.Permission, onMode: a.setMode}
	if a.client.permission == nil {
		a.client.permission = AllowContextTools
	}
	status.setClient(a.client)
	// The SDK starts reading as soon as the connection exists and reads
	// its logger without a lock, so the reader waits until the logger is
	// set: closing the gate orders the two.
	gate := &gatedReader{r: outR, open: make(chan struct{})}
	a.conn = sdk.NewClientSideConnection(a.client, inW, gate)
	a.conn.SetLogger(a.logger())
	close(gate.open)

	if err := a.initialize(ctx); err != nil {
		_ = a.Stop()
		return nil, err
	}
	return a, nil
}

func (a *Agent) initialize(ctx context.Context) error {
	ictx, cancel := context.WithTimeout(ctx, a.cfg.InitTimeout)
	defer cancel()
	resp, err := a.conn.Initialize(ictx, sdk.InitializeRequest{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo:      &sdk.Implementation{Name: "researchctx", Version: "1"},
	})
	if err != nil {
		return a.callError(ctx, ictx, "initialize", err)
	}
	caps := resp.AgentCapabilities
	a.caps = Capabilities{
		Resume: caps.SessionCapabilities.Resume != nil,
		Load:   caps.LoadSession,
		Close:  caps.SessionCapabilities.Close != nil,
	}
	if resp.AgentInfo != nil {
		a.caps.AgentName, a.caps.AgentVersion = resp.AgentInfo.Name, resp.AgentInfo.Version
	}
	if a.cfg.AuthMethod != "" {
		if _, err := a.conn.Authenticate(ictx, sdk.AuthenticateRequest{MethodId: a.cfg.AuthMethod}); err != nil {
			return a.callError(ctx, ictx, "authenticate", err)
		}
	}
	return nil
}

// callError explains a failed request: the agent gone, a timeout of the
// request's own deadline, the caller's cancellation, or the agent's error.
func (a *Agent) callError(parent, reqCtx context.Context, method string, err error) error {
	var re *sdk.RequestError
	fromAgent := errors.As(err, &re) && re.Code != -32603
	if !fromAgent && parent.Err() == nil && reqCtx.Err() == nil {
		// A failed write or read: give the exit a moment to show, so the
		// error says the agent is gone rather than "broken pipe".
		select {
		case <-a.conn.Done():
		case <-a.exited:
		case <-time.After(200 * time.Millisecond):
		}
	}
	select {
	case <-a.conn.Done():
		return fmt.Errorf("%w: %s: %s exited or closed its connection", ErrStopped, method, a.cfg.Name)
	case <-a.exited:
		return fmt.Errorf("%w: %s: %s exited", ErrStopped, method, a.cfg.Name)
	default:
	}
	switch {
	case parent.Err() != nil:
		return fmt.Errorf("%w: %s: %w", ErrAgent, method, parent.Err())
	case reqCtx.Err() != nil:
		return fmt.Errorf("%w: %s: %s did not answer in time: %w", ErrAgent, method, a.cfg.Name, context.DeadlineExceeded)
	}
	return fmt.Errorf("%w: %s: %w", ErrAgent, method, err)
}

// Capabilities returns what the agent advertised at initialize.
func (a *Agent) Capabilities() Capabilities { return a.caps }

// Guard returns whether the agent is kept to the agentero-context tools as
// far as initialize tells; for agents kept by their session mode it is
// known per turn (TurnResult.Guard).
func (a *Agent) Guard() Guard { return a.guard }

// Args returns the arguments the agent process was started with,
// CodexOverrides included when Start added them.
func (a *Agent) Args() []string { return slices.Clone(a.cfg.Args) }

func (a *Agent) logger() *slog.Logger {
	if a.cfg.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.cfg.Logger
}

// Name returns the agent's configured name.
func (a *Agent) Name() string { return a.cfg.Name }

// Done is closed when the agent's connection ends (the process exited or
// closed stdout).
func (a *Agent) Done() <-chan struct{} { return a.conn.Done() }

// Stop ends the agent: it closes the agent's stdin, sends SIGTERM to the
// whole process group, waits up to StopTimeout, then sends SIGKILL to the
// group, and waits for the group to be gone. It is safe to call more than
// once; later calls return the first result.
func (a *Agent) Stop() error {
	a.stopOnce.Do(func() {
		if a.cleanup != nil {
			defer a.cleanup()
		}
		a.mu.Lock()
		a.stopped = true
		a.mu.Unlock()
		_ = a.stdin.Close()
		signalGroup(a.pgid, syscall.SIGTERM)
		select {
		case <-a.exited:
		case <-time.After(a.cfg.StopTimeout):
		}
		// Children may outlive the leader or ignore SIGTERM.
		if groupAlive(a.pgid) {
			signalGroup(a.pgid, syscall.SIGKILL)
		}
		<-a.exited // bounded: the leader is killed and WaitDelay caps the pipes
		_ = a.stdout.Close()
		deadline := time.Now().Add(2 * time.Second)
		for groupAlive(a.pgid) {
			if time.Now().After(deadline) {
				a.stopErr = fmt.Errorf("%w: process group of %s still alive after SIGKILL", ErrAgent, a.cfg.Name)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	return a.stopErr
}

// Session is one ACP session on a running agent.
type Session struct {
	agent *Agent
	id    sdk.SessionId
	// Set at creation, read-only afterwards.
	server bool // created (or reopened) with agentero-context attached
	cwd    string

	mu          sync.Mutex
	fingerprint string // scope of the plan it serves; "" while warm
	refused     bool
	modes       []string // session modes the agent offers
	mode        string   // the agent's current mode
}

// setModes records the modes a session response offers.
func (s *Session) setModes(m *sdk.SessionModeState) {
	if m == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modes = s.modes[:0]
	for _, x := range m.AvailableModes {
		s.modes = append(s.modes, string(x.Id))
	}
	s.mode = string(m.CurrentModeId)
}

// setMode records the agent's current mode of a live session.
func (a *Agent) setMode(id sdk.SessionId, mode string) {
	if s := a.live(string(id)); s != nil {
		s.mu.Lock()
		s.mode = mode
		s.mu.Unlock()
	}
}

// ID returns the agent's session id.
func (s *Session) ID() string { return string(s.id) }

// Agent returns the agent the session lives on.
func (s *Session) Agent() *Agent { return s.agent }

// Cwd returns the session's working directory.
func (s *Session) Cwd() string { return s.cwd }

// HasServer reports whether the session was opened with the
// agentero-context server attached.
func (s *Session) HasServer() bool { return s.server }

// Refused reports whether the session was refused a resume or left behind
// by a scope change; such a session is never pooled again.
func (s *Session) Refused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// Fingerprint returns the scope fingerprint the session serves ("" for a
// warm session not yet used).
func (s *Session) Fingerprint() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fingerprint
}

// Record returns the record a host keeps for the session.
func (s *Session) Record() Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Record{SessionID: string(s.id), Fingerprint: s.fingerprint, Refused: s.refused}
}

func (s *Session) markRefused() {
	s.mu.Lock()
	s.refused = true
	s.mu.Unlock()
}

// live returns the live session with the id, or nil.
func (a *Agent) live(id string) *Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

func (a *Agent) add(s *Session) {
	a.mu.Lock()
	a.sessions[string(s.id)] = s
	a.mu.Unlock()
}

// forget marks a live session refused, drops it from the live set and, when
// the agent supports it, closes it (best effort) so its MCP server ends.
func (a *Agent) forget(ctx context.Context, id string) {
	a.mu.Lock()
	s := a.sessions[id]
	delete(a.sessions, id)
	a.mu.Unlock()
	if s == nil {
		return
	}
	s.markRefused()
	if a.caps.Close {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_, _ = a.conn.CloseSession(cctx, sdk.CloseSessionRequest{SessionId: s.id})
	}
}

func (a *Agent) checkRunning() error {
	a.mu.Lock()
	stopped := a.stopped
	a.mu.Unlock()
	if stopped {
		return fmt.Errorf("%w: %s", ErrStopped, a.cfg.Name)
	}
	select {
	case <-a.conn.Done():
		return fmt.Errorf("%w: %s exited or closed its connection", ErrStopped, a.cfg.Name)
	default:
	}
	return nil
}

// Warm opens a session without any MCP server, to be kept in a WarmPool and
// serve a later prompt-only turn.
func (a *Agent) Warm(ctx context.Context, cwd string) (*Session, error) {
	return a.newSession(ctx, cwd, []sdk.McpServer{})
}

// newSession sends session/new with the servers (never nil).
func (a *Agent) newSession(ctx context.Context, cwd string, servers []sdk.McpServer) (*Session, error) {
	if err := a.checkRunning(); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("%w: session cwd must be an absolute path", ErrTurn)
	}
	if servers == nil {
		servers = []sdk.McpServer{}
	}
	nctx, cancel := context.WithTimeout(ctx, a.cfg.OpenTimeout)
	defer cancel()
	resp, err := a.conn.NewSession(nctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: servers, Meta: a.sessionMeta()})
	if err != nil {
		return nil, a.callError(ctx, nctx, "session/new", err)
	}
	if resp.SessionId == "" {
		return nil, fmt.Errorf("%w: session/new: %s returned no session id", ErrAgent, a.cfg.Name)
	}
	s := &Session{agent: a, id: resp.SessionId, server: len(servers) > 0, cwd: cwd}
	s.setModes(resp.Modes)
	a.add(s)
	return s, nil
}

// gatedReader blocks reads until open is closed.
type gatedReader struct {
	r    io.Reader
	open chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}
