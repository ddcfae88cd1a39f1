package ocr

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/safefs"
)

// probeFixture is a fake tesseract program that logs each run and lists
// the languages of its language folder, as the real one does.
type probeFixture struct {
	prog, data, log, memo string
}

func newProbeFixture(t *testing.T, version string) *probeFixture {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	f := &probeFixture{prog: filepath.Join(dir, "bin", "tesseract"), data: filepath.Join(dir, "tessdata"), log: filepath.Join(dir, "runs"), memo: filepath.Join(dir, "memo")}
	for _, d := range []string{filepath.Dir(f.prog), f.data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.install(t, "eng")
	f.program(t, version)
	return f
}

// program writes the program, of the given version.
func (f *probeFixture) program(t *testing.T, version string) {
	t.Helper()
	script := "#!/bin/sh\necho run >> '" + f.log + "'\ncase \"$1\" in\n" +
		"--version) echo '" + version + "'; echo ' leptonica-1.0'; exit 0;;\n" +
		"--list-langs) echo 'List of available languages in \"" + f.data + "/\" (n):'; for l in '" + f.data + "'/*.traineddata; do basename \"$l\" .traineddata; done; exit 0;;\nesac\n"
	if err := os.WriteFile(f.prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// install adds a language to the program's folder.
func (f *probeFixture) install(t *testing.T, lang string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.data, lang+".traineddata"), []byte("model"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runs counts the program's runs so far.
func (f *probeFixture) runs() int {
	b, _ := os.ReadFile(f.log)
	return strings.Count(string(b), "run\n")
}

// engine is newTesseract over the fixture with its memo.
func (f *probeFixture) engine(t *testing.T) *Tesseract {
	t.Helper()
	eng, err := newTesseract(context.Background(), f.prog, nil, 0, 0, f.memo)
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// TestProbeMemo: a second engine of an unchanged program takes its
// version and languages from the memo without running it; a language
// installed, a program replaced or a memo a day old has it run again.
func TestProbeMemo(t *testing.T) {
	f := newProbeFixture(t, "tesseract 9.9.9")
	steps := []struct {
		name   string
		change func()
		id     string
		runs   int // the program's runs so far
	}{
		{"first", func() {}, "tesseract 9.9.9 eng", 2},
		{"unchanged", func() {}, "tesseract 9.9.9 eng", 2},
		{"again", func() {}, "tesseract 9.9.9 eng", 2},
		{"language installed", func() { f.install(t, "chi_sim") }, "tesseract 9.9.9 eng+chi_sim", 4},
		{"unchanged after", func() {}, "tesseract 9.9.9 eng+chi_sim", 4},
		{"program replaced", func() { f.program(t, "tesseract 10.0.1") }, "tesseract 10.0.1 eng+chi_sim", 6},
		{"language folder named elsewhere", func() {
			if err := os.Setenv("TESSDATA_PREFIX", "/elsewhere"); err != nil {
				t.Fatal(err)
			}
		}, "tesseract 10.0.1 eng+chi_sim", 8},
		{"unchanged at last", func() {}, "tesseract 10.0.1 eng+chi_sim", 8},
	}
	t.Setenv("TESSDATA_PREFIX", "")
	for _, s := range steps {
		s.change()
		eng := f.engine(t)
		if got := eng.ID(); got != s.id {
			t.Errorf("%s: ID %q, want %q", s.name, got, s.id)
		}
		if got := f.runs(); got != s.runs {
			t.Errorf("%s: the program ran %d times in all, want %d", s.name, got, s.runs)
		}
	}
	prog := statStamp(f.prog)
	if _, ok := readMemo(f.memo, memoFile, f.prog, prog, time.Now()); !ok {
		t.Fatal("the memo does not hold now")
	}
	if _, ok := readMemo(f.memo, memoFile, f.prog, prog, time.Now().Add(memoAge+time.Minute)); ok {
		t.Error("a memo older than a day holds")
	}
	if _, ok := readMemo(f.memo, memoFile, f.prog, prog, time.Now().Add(-time.Hour)); ok {
		t.Error("a memo written in the future holds")
	}
	if _, ok := readMemo(f.memo, memoFile, filepath.Join(t.TempDir(), "tesseract"), prog, time.Now()); ok {
		t.Error("the memo holds for another program")
	}
}

// TestProbeMemoForged: a memo that is damaged, of another form, or names
// what no program says is probed again, and the engine runs the program
// it was given whatever the memo says.
func TestProbeMemoForged(t *testing.T) {
	f := newProbeFixture(t, "tesseract 9.9.9")
	f.engine(t)
	prog := statStamp(f.prog)
	key := strconv.Quote(memoKey(f.prog, prog, f.data+"/"))
	now := strconv.FormatInt(time.Now().Unix(), 10)
	tests := []struct {
		name string
		body string
	}{
		{"empty", ""},
		{"another head", strings.Join([]string{"tesseract-probe 0", key, now, "tesseract 1.0", f.data + "/", "eng"}, "\n")},
		{"another key", strings.Join([]string{memoHead, strconv.Quote("x"), now, "tesseract 1.0", f.data + "/", "eng"}, "\n")},
		{"not a version", strings.Join([]string{memoHead, key, now, "rm -rf 1.0", f.data + "/", "eng"}, "\n")},
		{"a control character", strings.Join([]string{memoHead, key, now, "tesseract 1.0\x1b[2J", f.data + "/", "eng"}, "\n")},
		{"a language name with a path", strings.Join([]string{memoHead, key, now, "tesseract 1.0", f.data + "/", "../../etc/eng"}, "\n")},
		{"a language option", strings.Join([]string{memoHead, key, now, "tesseract 1.0", f.data + "/", "eng --tessdata-dir"}, "\n")},
		{"no time", strings.Join([]string{memoHead, key, "soon", "tesseract 1.0", f.data + "/", "eng"}, "\n")},
		{"a line more", strings.Join([]string{memoHead, key, now, "tesseract 1.0", f.data + "/", "eng", ""}, "\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := safefs.OpenDir(f.memo, safefs.Create)
			if err != nil {
				t.Fatal(err)
			}
			err = d.WriteSealed(memoFile, []byte(tt.body))
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			before := f.runs()
			eng := f.engine(t)
			if got, want := eng.ID(), "tesseract 9.9.9 eng"; got != want {
				t.Errorf("ID %q, want %q", got, want)
			}
			if f.runs() == before {
				t.Error("the forged memo was taken: the program did not run")
			}
			if eng.path != f.prog {
				t.Errorf("the engine runs %q, want %q", eng.path, f.prog)
			}
		})
	}
	// The memo each probe rewrote holds: the first case's key was right.
	if diff := cmp.Diff(f.data+"/", func() string { p, _ := readMemo(f.memo, memoFile, f.prog, prog, time.Now()); return p.data }()); diff != "" {
		t.Errorf("the rewritten memo's folder (-want +got):\n%s", diff)
	}
}
