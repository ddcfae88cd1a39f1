// Package usage is a turn's usage log, usage.jsonl, beside its grant
// (grant.UsagePath): what the server charged and what the host shows.
//
// On the server side, every tool call reserves its share of the turn's
// characters before it builds its result and settles one Line with the
// citation URIs it returned (Log, Reservation): under an exclusive lock on
// the file, shared by every process serving the grant, so no interleaving
// of calls hands out more than the turn's budget.
//
// On the host side, Read reads a turn back as the sources a host shows:
// each URI with the tools that returned it, how it reached the agent
// (Use: read, searched, related) and where it lies (Place: in the grant,
// in the library, outside); Turn.Groups groups them for drawing.
//
// Clean removes the runtime folders no conversation has used for a while;
// it takes the log's lock, so a folder in use is never removed.
//
// The format of a line is docs/contract.md §6; the package imports grant
// and cite, and nothing above them.
package usage
