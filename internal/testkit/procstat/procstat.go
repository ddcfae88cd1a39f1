// Package procstat reads what the benchmark commands report about their
// own process: peak resident memory and CPU time. Both are zero where the
// system does not say.
package procstat
