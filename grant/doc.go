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
// Beside the grant, at UsagePath, usage.jsonl is the turn's log; package
// usage writes it (the server's budget ledger) and reads it back (the
// sources a host shows).
//
// The package is the bottom of the SDK: the host front (package
// researchctx), the tools, the usage log, the MCP server and the ACP side
// all speak it, and it imports none of them.
package grant
