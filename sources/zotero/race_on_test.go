//go:build race

package zotero

// raceEnabled: the tests run under the race detector, which makes the
// pure-Go SQLite driver some twenty times slower: tests that bound the
// work of a huge database, not concurrency, run without it.
const raceEnabled = true
