// Package grant is the contract between a host and the agentero-context
// server it attaches to an agent: what one turn may read, within which
// budget, and what the agent was given.
//
// A Grant is a turn's Scope — the granted sources (Ref: a kind, a
// vault-relative path, a title and, for a connector, an opaque config), the
// tools, the Budget and the Mode — with the Vault, the runtime and turn ids
// and the scope's Fingerprint. The host writes it with Write, in its one
// place under the Vault ({vault}/.agentero/context-sessions/{runtime-id}/
// grant.json); the server reads it with Read, which accepts it only there and
// only when the fingerprint matches the scope.
//
// Beside the grant, usage.jsonl is the turn's log: every tool call reserves
// its share of the turn's characters (UsageLog, shared by every process on
// the grant), then settles one line with the citation URIs it returned.
// ReadUsage reads a turn back as the sources a host shows: each URI with the
// tools that returned it, how it reached the agent (read, searched, related)
// and where it lies (in the grant, in the library, outside).
//
// The package is the bottom of the SDK: the host front (package
// researchctx), the tools, the MCP server and the ACP side all speak it, and
// it imports none of them.
package grant
