package safefs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteSealedFunc checks that a file written in pieces is the file
// WriteSealed writes of their concatenation, and that an error of the
// writer leaves the previous file in place and no other.
func TestWriteSealedFunc(t *testing.T) {
	root := t.TempDir()
	d, err := OpenDir(filepath.Join(root, "cache"), Private)
	must(t, err)
	defer d.Close()
	big := bytes.Repeat([]byte("0123456789abcdef"), 40000) // past the buffer
	pieces := [][]byte{[]byte("head "), big, nil, []byte(" tail")}
	must(t, d.WriteSealedFunc("a.bin", func(w io.Writer) error {
		for _, p := range pieces {
			if _, err := w.Write(p); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, d.WriteSealed("b.bin", bytes.Join(pieces, nil)))
	a, errA := os.ReadFile(filepath.Join(root, "cache", "a.bin"))
	b, errB := os.ReadFile(filepath.Join(root, "cache", "b.bin"))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Fatalf("pieces wrote %d bytes (%v), WriteSealed %d (%v): want the same bytes", len(a), errA, len(b), errB)
	}
	if got, err := d.ReadSealed("a.bin", 0); err != nil || !bytes.Equal(got, bytes.Join(pieces, nil)) {
		t.Errorf("ReadSealed = %d bytes, %v", len(got), err)
	}

	fail := errors.New("no more")
	err = d.WriteSealedFunc("a.bin", func(w io.Writer) error {
		w.Write([]byte("partial"))
		return fail
	})
	if !errors.Is(err, fail) {
		t.Errorf("WriteSealedFunc = %v, want the writer's error", err)
	}
	if got, err := os.ReadFile(filepath.Join(root, "cache", "a.bin")); err != nil || !bytes.Equal(got, a) {
		t.Errorf("after a failed write the file is %d bytes (%v), want the previous %d", len(got), err, len(a))
	}
	des, _ := os.ReadDir(filepath.Join(root, "cache"))
	if len(des) != 2 {
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		t.Errorf("folder holds %v, want a.bin and b.bin only", names)
	}
}
