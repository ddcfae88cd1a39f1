package procstat

import (
	"runtime"
	"testing"
	"time"
)

func TestReadsThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("measured on Linux only")
	}
	faults := MinorFaults()
	buf := make([]byte, 32<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	// Each of the buffer's pages is first touched here: 8,192 of 4 KiB,
	// or 16 huge pages of 2 MiB.
	if got := MinorFaults() - faults; got < 16 {
		t.Errorf("MinorFaults grew by %d after touching %d new bytes", got, len(buf))
	}
	if rss := PeakRSS(); rss < int64(len(buf)) {
		t.Errorf("PeakRSS %d after touching %d bytes", rss, len(buf))
	}
	start := time.Now()
	for time.Since(start) < 50*time.Millisecond {
	}
	if cpu := CPUTime(); cpu < 20*time.Millisecond {
		t.Errorf("CPUTime %v after 50 ms of spinning", cpu)
	}
	runtime.KeepAlive(buf)
}
