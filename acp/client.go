package acp

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// client is the host side of the ACP connection: it folds session updates
// and permission requests into the running turn's tracker and answers
// permission requests with the policy. It offers no file-system or
// terminal access (none is advertised).
type client struct {
	mu         sync.Mutex
	trackers   map[sdk.SessionId]*tracker
	loads      map[sdk.SessionId]time.Time // sessions being loaded: when an update last came
	permission Policy
	onMode     func(sdk.SessionId, string)
}

// A loaded session's history may still be streaming after session/load is
// answered (gemini-cli replays it without waiting): the first prompt waits
// until the session has been silent for replayQuiet, at most replayMax,
// and what came meanwhile is dropped as history.
const (
	replayQuiet = 200 * time.Millisecond
	replayMax   = 3 * time.Second
)

// beginLoad starts dropping a session's updates as replayed history.
func (c *client) beginLoad(id sdk.SessionId) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loads == nil {
		c.loads = map[sdk.SessionId]time.Time{}
	}
	c.loads[id] = time.Now()
}

// endLoad ends beginLoad.
func (c *client) endLoad(id sdk.SessionId) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.loads, id)
}

// settleLoad waits, after session/load was answered, for the replay of
// the session's history to end (see replayQuiet), then ends beginLoad.
func (c *client) settleLoad(ctx context.Context, id sdk.SessionId) {
	defer c.endLoad(id)
	start := time.Now()
	c.mu.Lock()
	c.loads[id] = start // the answer is the last sign of life so far
	c.mu.Unlock()
	for {
		c.mu.Lock()
		last := c.loads[id]
		c.mu.Unlock()
		wait := replayQuiet - time.Since(last)
		if wait <= 0 || time.Since(start) >= replayMax {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(min(wait, replayMax-time.Since(start))):
		}
	}
}

var _ sdk.Client = (*client)(nil)

func (c *client) setTracker(id sdk.SessionId, t *tracker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t == nil {
		delete(c.trackers, id)
		return
	}
	c.trackers[id] = t
}

func (c *client) tracker(id sdk.SessionId) *tracker {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.trackers[id]
}

// running returns the trackers of the running turns.
func (c *client) running() []*tracker {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*tracker, 0, len(c.trackers))
	for _, t := range c.trackers {
		out = append(out, t)
	}
	return out
}

// SessionUpdate passes an update to the tracker of its session's turn.
// The SDK delivers notifications one at a time, in order.
func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	if m := n.Update.CurrentModeUpdate; m != nil && c.onMode != nil {
		c.onMode(n.SessionId, string(m.CurrentModeId))
	}
	c.mu.Lock()
	t := c.trackers[n.SessionId]
	if _, loading := c.loads[n.SessionId]; loading {
		c.loads[n.SessionId] = time.Now()
	}
	c.mu.Unlock()
	if t != nil {
		t.update(n.Update)
	}
	return nil
}

// HandleExtensionMethod receives the agent's extension notifications
// ("_vendor/...") and streams those naming a session with a running turn
// as status events. No extension request is implemented.
func (c *client) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	var p struct {
		SessionID sdk.SessionId `json:"sessionId"`
	}
	if json.Unmarshal(params, &p) == nil && p.SessionID != "" {
		if t := c.tracker(p.SessionID); t != nil {
			t.status(method + " " + dataText(json.RawMessage(params)))
		}
	}
	return nil, sdk.NewMethodNotFound(method)
}

func flatUpdate(u sdk.SessionUpdate) Update {
	out := Update{Kind: UpdateOther, Raw: u}
	switch {
	case u.AgentMessageChunk != nil:
		out.Kind, out.Text = UpdateMessage, blockText(u.AgentMessageChunk.Content)
	case u.AgentThoughtChunk != nil:
		out.Kind, out.Text = UpdateThought, blockText(u.AgentThoughtChunk.Content)
	}
	return out
}

func blockText(b sdk.ContentBlock) string {
	if b.Text != nil {
		return b.Text.Text
	}
	return ""
}

// RequestPermission answers with the policy and records the request's
// tool call (and the answer) in the running turn's tool calls.
func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	t := c.tracker(p.SessionId)
	if t != nil {
		pctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-t.cancelled:
				cancel()
			case <-pctx.Done():
			}
		}()
		ctx = pctx
	}
	resp, err := c.permission(ctx, p)
	if t != nil {
		select {
		case <-t.cancelled:
			// After session/cancel every pending request is answered
			// cancelled, whatever the policy said.
			resp, err = sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
		default:
		}
		t.permission(p, err == nil && allowed(p, resp))
	}
	return resp, err
}

// The host offers no file system or terminal to the agent.

func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsReadTextFile)
}

func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsWriteTextFile)
}

func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalCreate)
}

func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalKill)
}

func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalOutput)
}

func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalRelease)
}

func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalWaitForExit)
}
