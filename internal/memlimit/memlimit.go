// Package memlimit holds the soft memory limits of the agentero-context
// server process, so that the benchmarks that run a server's work in a
// process of their own run it under the same limits.
package memlimit

// Server is the soft memory limit (see runtime/debug.SetMemoryLimit) of a
// server process unless GOMEMLIMIT is set; package mcp says why it is
// this size.
const Server = 200 << 20

// StartupHeap is the soft memory limit while a new server process holds
// its garbage collector off, until its first answer.
const StartupHeap = 128 << 20
