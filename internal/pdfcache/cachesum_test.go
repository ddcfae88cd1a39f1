package pdfcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"
)

// TestCacheSum: Sum is the SHA-256 of the file's content; an extraction's
// path record answers it without opening the file, but only for the very
// file it was written for: another identity, size or time is hashed.
func TestCacheSum(t *testing.T) {
	data := fixture(t, "simple.pdf")
	h := sha256.Sum256(data)
	want := hex.EncodeToString(h[:])
	c := &Cache{Dir: t.TempDir()}
	key := FileInfo{Path: "papers/simple.pdf", Size: int64(len(data)), ModTime: time.Unix(1700000000, 5), ID: "1:2:3"}
	ctx := context.Background()
	o := &countingOpener{data: data}
	if _, err := c.Extract(ctx, key, o.open); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		key   FileInfo
		opens int32
	}{
		{"the extracted file", key, 0},
		{"another identity", FileInfo{Path: key.Path, Size: key.Size, ModTime: key.ModTime, ID: "1:2:4"}, 1},
		{"another time", FileInfo{Path: key.Path, Size: key.Size, ModTime: key.ModTime.Add(time.Second), ID: key.ID}, 1},
		{"no path", FileInfo{}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &countingOpener{data: data}
			got, err := c.Sum(ctx, tc.key, o.open)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("Sum = %s, want %s", got, want)
			}
			if n := o.opens.Load(); n != tc.opens {
				t.Errorf("file opened %d times, want %d", n, tc.opens)
			}
		})
	}
}
