package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/researchctx/researchctx/internal/lowprio"
)

// Environment variables Default reads.
const (
	// EnvOCR is "off" (no OCR), "auto" or empty (the tesseract program
	// when it is on PATH), or the path of a tesseract program.
	EnvOCR = "RESEARCHCTX_OCR"
	// EnvLangs lists the languages, "+"- or ","-separated (eng+chi_sim);
	// empty means the installed ones among DefaultLangs.
	EnvLangs = "RESEARCHCTX_OCR_LANGS"
)

// DefaultLangs are the languages used when EnvLangs is empty, those of
// them that are installed.
var DefaultLangs = []string{"eng", "chi_sim", "jpn"}

// DefaultTimeout is the deadline of one page.
const DefaultTimeout = 60 * time.Second

// MaxOutput bounds what the program may print for one page; more is a
// failure (ErrFailed), not a result.
const MaxOutput = 8 << 20

// Tesseract runs the tesseract program, one process per page with one
// thread each (OMP_THREAD_LIMIT=1), at most Workers at a time, each
// within Timeout, each below the calls an agent waits for as
// lowprio.RunContext runs it (the calls in flight are those that the
// context given to Recognize tells of, with lowprio.WithCalls). Make one
// with NewTesseract.
type Tesseract struct {
	path    string
	version string
	langs   []string
	timeout time.Duration
	sem     chan struct{}
}

// NewTesseract returns the engine that runs the tesseract program at path
// (a name looked up on PATH, or a path) with the given languages (nil: the
// installed ones among DefaultLangs), each page within timeout (0:
// DefaultTimeout), at most workers pages at a time (0: one per core). It
// runs the program to learn its version and languages, and fails with
// ErrUnavailable when it does not run or has none of the languages.
func NewTesseract(ctx context.Context, path string, langs []string, timeout time.Duration, workers int) (*Tesseract, error) {
	return newTesseract(ctx, path, langs, timeout, workers, "")
}

// newTesseract is NewTesseract with the program's probe remembered in the
// folder memo ("": not remembered; see probeOf).
func newTesseract(ctx context.Context, path string, langs []string, timeout time.Duration, workers int, memo string) (*Tesseract, error) {
	exe, err := exec.LookPath(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s not found", ErrUnavailable, path)
	}
	p, err := probeOf(ctx, exe, memo, memoFile)
	if err != nil {
		return nil, err
	}
	installed := map[string]bool{}
	for _, l := range p.langs {
		installed[l] = true
	}
	want := langs
	if len(want) == 0 {
		want = DefaultLangs
	}
	var use []string
	for _, l := range want {
		if installed[l] {
			use = append(use, l)
		} else if len(langs) > 0 {
			return nil, fmt.Errorf("%w: language %s is not installed", ErrUnavailable, l)
		}
	}
	if len(use) == 0 {
		return nil, fmt.Errorf("%w: none of the languages %s is installed", ErrUnavailable, strings.Join(want, ", "))
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	return &Tesseract{path: exe, version: p.version, langs: use, timeout: timeout, sem: make(chan struct{}, workers)}, nil
}

var (
	defaultOnce sync.Once
	defaultEng  Engine
	defaultNote string
)

// memoFile is the name of the probe memo in Default's folder.
const memoFile = "tesseract-probe"

// Default returns the engine the environment asks for (EnvOCR, EnvLangs),
// found once per process, or nil and a one-line note saying why there is
// none ("OCR is off", "tesseract is not installed"). What the program says
// of itself (its version and languages) is remembered in the folder memo
// ("": nowhere), so that a new process does not run it again to learn
// that while it and its languages are unchanged; the first call's memo
// is the process's.
func Default(memo string) (Engine, string) {
	defaultOnce.Do(func() {
		v := strings.TrimSpace(os.Getenv(EnvOCR))
		path := "tesseract"
		switch strings.ToLower(v) {
		case "off", "0", "false", "no":
			defaultNote = "OCR is off (" + EnvOCR + "=off)"
			return
		case "", "auto", "on":
		default:
			path = v
		}
		langs := strings.FieldsFunc(os.Getenv(EnvLangs), func(r rune) bool { return r == '+' || r == ',' || r == ' ' })
		t, err := newTesseract(context.Background(), path, langs, 0, 0, memo)
		if err != nil {
			defaultNote = "no OCR: tesseract is not installed or does not run"
			if !errors.Is(err, ErrUnavailable) || strings.Contains(err.Error(), "language") {
				defaultNote = "no OCR: " + strings.TrimPrefix(err.Error(), ErrUnavailable.Error()+": ")
			}
			return
		}
		defaultEng = t
	})
	return defaultEng, defaultNote
}

// ID names the program's version and languages.
func (t *Tesseract) ID() string { return t.version + " " + strings.Join(t.langs, "+") }

// Langs returns the languages the engine reads.
func (t *Tesseract) Langs() []string { return slices.Clone(t.langs) }

// Recognize runs the program on one image, waiting for a free worker.
func (t *Tesseract) Recognize(ctx context.Context, img Image) (*Result, error) {
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-t.sem }()
	pctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	// A line read with low confidence is not read again inverted (white
	// on black, tessedit_do_invert): a scan's text is dark on light, and
	// the second reading took a few per cent of the engine's CPU on the
	// benchmark's scans (up to a tenth on a page) for a handful of words.
	// A version that does not know the setting says so on its standard
	// error and reads the page anyway.
	args := []string{"stdin", "stdout", "-l", strings.Join(t.langs, "+"), "--psm", "3", "-c", "tessedit_do_invert=0"}
	data := img.Data
	if img.Format == JPEG {
		// A grey page coded in colour goes as the grey it is (see
		// grayJPEG).
		if pgm, dpi, ok := grayJPEG(img.Data); ok {
			data = pgm
			if dpi > 0 {
				args = append(args, "--dpi", strconv.Itoa(dpi))
			}
		}
	}
	cmd := exec.CommandContext(pctx, t.path, append(args, "tsv")...)
	// One thread: the workers already keep every core busy, and a
	// program built with OpenMP spins its idle threads.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr capped
	stdout.max, stderr.max = MaxOutput, 16<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 2 * time.Second
	// Below the calls an agent waits for, in a session of its own while
	// none is in flight (see lowprio.RunContext).
	err := lowprio.RunContext(ctx, cmd)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case pctx.Err() != nil:
		return nil, fmt.Errorf("%w (%s)", ErrTimeout, t.timeout)
	case stdout.over:
		return nil, fmt.Errorf("%w: more than %d bytes of output", ErrFailed, MaxOutput)
	case err != nil:
		msg := strings.TrimSpace(stderr.b.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, fmt.Errorf("%w: %v: %s", ErrFailed, err, msg)
	}
	r, err := ParseTSV(stdout.b.Bytes())
	if err != nil {
		return nil, err
	}
	return r, nil
}

// capped is a buffer that keeps at most max bytes and remembers that more
// came.
type capped struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.b.Len()+len(p) > c.max {
		c.over = true
		return 0, errors.New("output over its limit")
	}
	return c.b.Write(p)
}

// ParseTSV reads tesseract's TSV output: words (level 5) with their
// boxes, normalised to the page (level 1), and confidences; lines and
// paragraphs as the program grouped them. Output that is not TSV is
// ErrFailed.
func ParseTSV(data []byte) (*Result, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "level\t") {
		return nil, fmt.Errorf("%w: output is not TSV", ErrFailed)
	}
	var pw, ph float64
	var words []Word
	var b strings.Builder
	type lineKey struct{ block, par, line int }
	var last lineKey
	line := -1
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 11 {
			return nil, fmt.Errorf("%w: a TSV row of %d fields", ErrFailed, len(f))
		}
		var n [10]int
		for i := range 10 {
			v, err := strconv.Atoi(f[i])
			if err != nil {
				return nil, fmt.Errorf("%w: a TSV row that is not numbers", ErrFailed)
			}
			n[i] = v
		}
		if n[0] == 1 {
			pw, ph = float64(n[8]), float64(n[9])
			continue
		}
		text := ""
		if len(f) > 11 {
			text = strings.TrimSpace(strings.Join(f[11:], " "))
		}
		if n[0] != 5 || text == "" {
			continue
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil {
			return nil, fmt.Errorf("%w: a TSV confidence that is not a number", ErrFailed)
		}
		k := lineKey{n[2], n[3], n[4]}
		switch {
		case line < 0:
		case k.block != last.block || k.par != last.par:
			b.WriteString("\n\n")
		case k != last:
			b.WriteString("\n")
		default:
			b.WriteString(" ")
		}
		if line < 0 || k != last {
			line++
		}
		last = k
		b.WriteString(text)
		w := Word{Text: text, Confidence: min(max(conf/100, 0), 1), Line: line}
		if pw > 0 && ph > 0 {
			w.X, w.Y, w.W, w.H = float64(n[6])/pw, float64(n[7])/ph, float64(n[8])/pw, float64(n[9])/ph
		}
		words = append(words, w)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFailed, err)
	}
	return &Result{Text: b.String(), Words: words, Confidence: confidence(words)}, nil
}
