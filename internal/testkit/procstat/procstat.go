// Package procstat reads what the benchmark commands report about their
// own process: peak resident memory, CPU time and minor page faults. Each
// is zero where the system does not say.
package procstat
