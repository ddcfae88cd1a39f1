package acp

import (
	"errors"
	"fmt"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/researchctx/researchctx/grant"
)

// ErrServer is wrapped by errors about the MCP server command a turn needs.
var ErrServer = errors.New("invalid agentero-context server command")

// Server is how the agent starts the agentero-context MCP server: the host's
// own executable with the server flag and the grant path. Hosts fill it from
// package mcp:
//
//	exe, args, err := mcp.ServerCommandLine(grantPath)
//	srv := acp.Server{Command: exe, Args: args}
type Server struct {
	Command string   // absolute path of the host executable
	Args    []string // e.g. ["--agentero-context-mcp", grantPath]
}

// Entry returns the ACP stdio entry for the server:
//
//	{"name": "agentero-context", "command": <exe>, "args": [...], "env": []}
//
// Args and Env are never nil: acp-go-sdk marshals a nil slice as null, and
// an entry without args or env decodes on the agent side as the HTTP
// variant of the union.
func (s Server) Entry() (sdk.McpServer, error) {
	if s.Command == "" {
		return sdk.McpServer{}, fmt.Errorf("%w: command is empty", ErrServer)
	}
	if !filepath.IsAbs(s.Command) {
		return sdk.McpServer{}, fmt.Errorf("%w: command must be an absolute path", ErrServer)
	}
	args := append([]string{}, s.Args...)
	return sdk.McpServer{Stdio: &sdk.McpServerStdio{
		Name:    grant.ServerName,
		Command: s.Command,
		Args:    args,
		Env:     []sdk.EnvVariable{},
	}}, nil
}

// McpServers returns the MCP server list for a session request under the
// decision: the server's entry when the decision attaches it, else an empty
// (never nil) list.
func (d Decision) McpServers(s Server) ([]sdk.McpServer, error) {
	if !d.AttachServer {
		return []sdk.McpServer{}, nil
	}
	e, err := s.Entry()
	if err != nil {
		return nil, err
	}
	return []sdk.McpServer{e}, nil
}
