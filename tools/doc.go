// Package tools holds the whole meaning of the three context tools —
// context_search, context_read and paper_relations — independent of any
// transport. A Toolset answers calls for one grant: it re-reads the grant
// file on every call and fails closed when it changed, checks every target
// against the granted sources, enforces the per-call and per-turn budget
// exactly (each call reserves its share through usage.Log before
// it builds its result, so parallel calls and several server processes of
// one turn never exceed it; every string of a result is charged, see
// ReadOutput.Chars), builds citation URIs, and appends one usage line per
// call, holding exactly its charge, before returning. A panic in a call is
// recovered into ErrInternal. Package mcp only exposes it.
package tools
