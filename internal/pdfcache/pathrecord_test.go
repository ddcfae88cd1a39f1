package pdfcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPathRecordNeedsTheSameFile forges the path record of one PDF to name
// another document's cached entry, as a record copied from another machine
// or written by someone else would, and checks that the cache uses a
// record only for the file it was written for: the same path, size, time
// and identity (FileInfo.ID).
func TestPathRecordNeedsTheSameFile(t *testing.T) {
	granted, other := fixture(t, "simple.pdf"), fixture(t, "twocol.pdf")
	if granted == nil || other == nil {
		t.Fatal("fixtures missing")
	}
	want := mustExtract(t, granted)
	c := &Cache{Dir: t.TempDir()}
	ctx := context.Background()
	mtime := time.Unix(1700000000, 0)
	keyOther := FileInfo{Path: "papers/b/b.pdf", Size: int64(len(other)), ModTime: mtime, ID: "1:200:5"}
	if _, err := c.Extract(ctx, keyOther, (&countingOpener{data: other}).open); err != nil {
		t.Fatal(err)
	}
	sumOther := sha256.Sum256(other)
	forge := func(rec pathRecord) {
		b, _ := json.Marshal(rec)
		h := sha256.Sum256([]byte(rec.Path))
		p := filepath.Join(c.Dir, "paths", hex.EncodeToString(h[:16])+".json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	key := FileInfo{Path: "papers/a/a.pdf", Size: int64(len(granted)), ModTime: mtime, ID: "1:100:5"}
	tests := []struct {
		name string
		id   string
	}{
		{"record copied from elsewhere", "1:200:5"},
		{"record without an identity", ""},
		{"record of a replaced file", "1:100:4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forge(pathRecord{Path: key.Path, Size: key.Size, ModTime: mtime.UnixNano(), SHA256: hex.EncodeToString(sumOther[:]), ID: tt.id})
			o := &countingOpener{data: granted}
			got, err := c.Extract(ctx, key, o.open)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpDoc); diff != "" {
				t.Errorf("document served through the forged record (-want +got):\n%s", diff)
			}
			if o.opens.Load() != 1 {
				t.Errorf("file opened %d times, want 1 (hashed again)", o.opens.Load())
			}
		})
	}
	// The record the cache wrote back is the file's own: used as is.
	o := &countingOpener{data: granted}
	if _, err := c.Extract(ctx, key, o.open); err != nil || o.opens.Load() != 0 {
		t.Errorf("own record: %v, %d opens", err, o.opens.Load())
	}
}
