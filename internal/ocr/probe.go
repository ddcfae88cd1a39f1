package ocr

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx/internal/safefs"
)

// A probe is what the tesseract program says of itself: its version line,
// its installed languages and the folder it keeps them in.
type probe struct {
	version string
	langs   []string
	data    string // the language folder --list-langs names; "" when it names none
}

// runProbe runs the program at exe to learn its probe.
func runProbe(ctx context.Context, exe string) (probe, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe, "--version").Output()
	if err != nil {
		return probe{}, fmt.Errorf("%w: tesseract --version: %v", ErrUnavailable, err)
	}
	version := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	if !strings.HasPrefix(version, "tesseract ") {
		return probe{}, fmt.Errorf("%w: not a tesseract program", ErrUnavailable)
	}
	out, err = exec.CommandContext(ctx, exe, "--list-langs").Output()
	if err != nil {
		return probe{}, fmt.Errorf("%w: tesseract --list-langs: %v", ErrUnavailable, err)
	}
	lines := strings.Split(string(out), "\n")
	p := probe{version: version}
	if m := dataFolder().FindStringSubmatch(lines[0]); m != nil {
		p.data = m[1]
	}
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" {
			p.langs = append(p.langs, l)
		}
	}
	return p, nil
}

// dataFolder finds the language folder in the first line --list-langs
// prints: List of available languages in "/usr/share/tessdata/" (3):
var dataFolder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^List of available languages in "([^"]+)"`) })

// Probe memos. Running the program twice to learn its probe takes tens of
// milliseconds of a small machine's cores, which a server's first answer
// waits for (the probe names the index's version). A memo file remembers
// the probe under the stamps of the program and of its language folder
// (a language installed or removed changes the folder's time), for a day,
// so that a library upgraded under an unchanged program is probed again.
const (
	memoHead = "tesseract-probe 1"
	memoAge  = 24 * time.Hour
	maxMemo  = 64 << 10
)

// isLangName reports whether s may be a language's name in a memo: 1 to
// 64 ASCII letters, digits and underscores. A loop, not a regular
// expression: a new server reads the memo before its first answer, and
// the expression's 64 repetitions took longer to compile than the rest of
// the memo's reading.
func isLangName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// probeOf returns the probe of the program at exe, from the memo named
// file in the folder dir when it holds and is fresh, else by running the
// program and remembering what it says there. dir "" keeps no memo. The
// memo is trusted for nothing it could make worse than a probe: the
// program run is always exe, and a memo whose stamps, version or names
// do not hold is probed again.
func probeOf(ctx context.Context, exe, dir, file string) (probe, error) {
	if dir == "" {
		return runProbe(ctx, exe)
	}
	prog := statStamp(exe)
	if prog == "" {
		return runProbe(ctx, exe)
	}
	if p, ok := readMemo(dir, file, exe, prog, time.Now()); ok {
		return p, nil
	}
	p, err := runProbe(ctx, exe)
	if err == nil && p.data != "" {
		writeMemo(dir, file, exe, prog, p, time.Now())
	}
	return p, err
}

// statStamp is a file's or folder's identity and times on this machine,
// "" when it cannot be stat'ed.
func statStamp(p string) string {
	st, err := os.Stat(p)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(st.Size(), 10) + ":" + strconv.FormatInt(st.ModTime().UnixNano(), 10) + ":" + safefs.FileKey(st)
}

// memoKey is what a memo is valid for: the program, its stamp, the
// environment it reads its languages from, and the language folder's
// stamp now.
func memoKey(exe, prog, data string) string {
	return strings.Join([]string{exe, prog, os.Getenv("TESSDATA_PREFIX"), data, statStamp(data)}, "\x00")
}

// readMemo reads the memo of the program exe at stamp prog, if it holds
// at now.
func readMemo(dir, file, exe, prog string, now time.Time) (probe, bool) {
	d, err := safefs.OpenDir(dir, 0)
	if err != nil {
		return probe{}, false
	}
	defer d.Close()
	b, err := d.ReadSealed(file, maxMemo)
	if err != nil {
		return probe{}, false
	}
	f := strings.Split(string(b), "\n")
	if len(f) != 6 || f[0] != memoHead {
		return probe{}, false
	}
	at, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || now.Sub(time.Unix(at, 0)) > memoAge || time.Unix(at, 0).After(now.Add(time.Minute)) {
		return probe{}, false
	}
	p := probe{version: f[3], data: f[4], langs: strings.Fields(f[5])}
	if f[1] != strconv.Quote(memoKey(exe, prog, p.data)) || !strings.HasPrefix(p.version, "tesseract ") || p.data == "" || len(p.langs) > 1000 {
		return probe{}, false
	}
	for _, r := range p.version {
		if r < ' ' || r == 0x7f {
			return probe{}, false
		}
	}
	for _, l := range p.langs {
		if !isLangName(l) {
			return probe{}, false
		}
	}
	return p, true
}

// writeMemo remembers p, the probe of exe at stamp prog, at now; a memo
// that cannot be written is left out. Each field is a line: runProbe's
// version and folder come from one line of the program's output each.
func writeMemo(dir, file, exe, prog string, p probe, now time.Time) {
	d, err := safefs.OpenDir(dir, safefs.Create)
	if err != nil {
		return
	}
	defer d.Close()
	body := strings.Join([]string{memoHead, strconv.Quote(memoKey(exe, prog, p.data)), strconv.FormatInt(now.Unix(), 10), p.version, p.data, strings.Join(p.langs, " ")}, "\n")
	_ = d.WriteSealed(file, []byte(body))
}
