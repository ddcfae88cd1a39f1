package usage

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/researchctx/researchctx/grant"
)

// BenchmarkLedger is the usage-log cost of one tool call: the reservation
// protocol (lock, read what is new, reserve; lock, settle) against the
// protocol it replaced (read what is new, then one unlocked append). A new
// turn every 1,000 calls keeps the budget from running out.
func BenchmarkLedger(b *testing.B) {
	b.Run("reserve-settle", func(b *testing.B) {
		l := Open(filepath.Join(b.TempDir(), grant.UsageFile))
		uris := []string{"papers/p/p.pdf#page=1"}
		for i := 0; b.Loop(); i++ {
			turn := "t" + strconv.Itoa(i/1000)
			r, _, err := l.Reserve(context.Background(), turn, 400_000, 300)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.Settle("context_read", uris, 300); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reserve-settle-parallel", func(b *testing.B) {
		// Four Logs on one file stand for four server processes,
		// each call contending for the lock.
		path := filepath.Join(b.TempDir(), grant.UsageFile)
		var next atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			l := Open(path)
			for pb.Next() {
				turn := "t" + strconv.FormatInt(next.Add(1)/1000, 10)
				r, _, err := l.Reserve(context.Background(), turn, 400_000, 300)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.Settle("context_read", nil, 300); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("sum-append", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), grant.UsageFile)
		uris := []string{"papers/p/p.pdf#page=1"}
		sums := map[string]int{}
		var off int64
		for i := 0; b.Loop(); i++ {
			turn := "t" + strconv.Itoa(i/1000)
			next, err := sumTurns(path, off, sums)
			if err != nil {
				b.Fatal(err)
			}
			off = next
			if err := appendUnlocked(path, Line{TurnID: turn, Tool: "context_read", URIs: uris, Chars: 300}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// appendUnlocked is the append of the protocol the ledger replaced: one
// O_APPEND write, no lock.
func appendUnlocked(path string, l Line) error {
	data, err := marshalUsage(l)
	if err != nil {
		return err
	}
	f, err := openUsage(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	f.Close()
	return err
}
