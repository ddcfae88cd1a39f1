// Package tools holds the whole meaning of the three context tools —
// context_search, context_read and paper_relations — independent of any
// transport. A Toolset answers calls for one grant: it re-reads the grant
// file on every call and fails closed when it changed, checks every target
// against the granted sources, enforces the per-call and per-turn budget
// (summed from usage.jsonl, so several server processes of one turn share
// it), builds citation URIs, and appends one usage line per call before
// returning. Package mcp only exposes it.
package tools
