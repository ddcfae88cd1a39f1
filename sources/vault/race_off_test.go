//go:build !race

package vault_test

// raceEnabled: the tests run under the race detector, whose memory and
// time overheads void the peak-RSS measurements.
const raceEnabled = false
