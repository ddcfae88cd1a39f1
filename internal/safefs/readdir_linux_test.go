package safefs

import (
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// dirent lays out one struct linux_dirent64, padded to 8 bytes.
func dirent(ino uint64, typ byte, name string) []byte {
	n := (direntName + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint64(b, ino)
	binary.NativeEndian.PutUint16(b[direntReclen:], uint16(n))
	b[direntType] = typ
	copy(b[direntName:], name)
	return b
}

// TestParseDirents: every type getdents64 gives is read as os.ReadDir
// reads it, an unknown one is left to an Lstat, and "." and ".." and
// deleted entries are left out; an entry that does not fit is an error.
func TestParseDirents(t *testing.T) {
	var b []byte
	for _, d := range []struct {
		ino  uint64
		typ  byte
		name string
	}{
		{1, unix.DT_DIR, "."}, {2, unix.DT_DIR, ".."}, {3, unix.DT_DIR, "papers"}, {4, unix.DT_REG, "a.pdf"},
		{0, unix.DT_REG, "deleted"}, {5, unix.DT_LNK, "link"}, {6, unix.DT_FIFO, "fifo"}, {7, unix.DT_SOCK, "sock"},
		{8, unix.DT_CHR, "tty"}, {9, unix.DT_BLK, "disk"}, {10, unix.DT_UNKNOWN, "unknown"}, {11, unix.DT_REG, strings.Repeat("n", 200)},
	} {
		b = append(b, dirent(d.ino, d.typ, d.name)...)
	}
	got, err := parseDirents(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []dirName{
		{"papers", fs.ModeDir, true}, {"a.pdf", 0, true}, {"link", fs.ModeSymlink, true}, {"fifo", fs.ModeNamedPipe, true},
		{"sock", fs.ModeSocket, true}, {"tty", fs.ModeDevice | fs.ModeCharDevice, true}, {"disk", fs.ModeDevice, true},
		{"unknown", 0, false}, {strings.Repeat("n", 200), 0, true},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(dirName{})); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	for _, bad := range [][]byte{
		b[:10],       // shorter than a head
		b[:len(b)-3], // the last entry cut
		append(binary.NativeEndian.AppendUint16(make([]byte, 16), 4), make([]byte, 6)...), // a length below the head
	} {
		if _, err := parseDirents(nil, bad); err == nil {
			t.Errorf("%d malformed bytes parsed", len(bad))
		}
	}
}

// TestListDir: a folder lists as os.ReadDir lists it, types included.
func TestListDir(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b/c"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Several buffers of entries, so that listDir reads them in several
	// calls (checked below); more files than that would only cost their
	// creation.
	for i := range 800 {
		if err := os.WriteFile(filepath.Join(dir, "f"+strings.Repeat("x", i%40)+string(rune('a'+i%26))+"-"+itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	got, err := listDir(h)
	if err != nil {
		t.Fatal(err)
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []dirName
	records := 0 // bytes of the entries as getdents64 returns them
	for _, de := range des {
		want = append(want, dirName{name: de.Name(), typ: de.Type(), known: true})
		records += (19 + len(de.Name()) + 1 + 7) &^ 7
	}
	bp := direntBufs.Get().(*[]byte)
	if buf := len(*bp); records < 3*buf {
		t.Fatalf("%d bytes of entries, want more than three buffers of %d", records, buf)
	}
	direntBufs.Put(bp)
	slices.SortFunc(got, func(a, b dirName) int { return strings.Compare(a.name, b.name) })
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(dirName{})); diff != "" {
		t.Errorf("listing (-os.ReadDir +listDir):\n%s", diff)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
