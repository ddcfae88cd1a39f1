package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// screenshots, when set, is the folder the browser test saves a PNG of
// each state of the page into (the README's pictures):
//
//	go test ./examples/sidebar -run TestBrowser -screenshots "$PWD/docs/img"
var screenshots = flag.String("screenshots", "", "save a screenshot of each state of the page into this folder")

// chromium returns the path of a Chromium or Chrome to drive, or skips the
// test when there is none (it fails instead under CI=true, where .ci/run
// installs Debian's chromium).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium found (CI installs Debian's chromium package: apt-get install -y chromium)")
	}
	t.Skip("no Chromium found: install Debian's chromium package to run the browser test")
	return ""
}

// The headless Chromium of the browser tests, started once per test run
// (its start is most of a short test's time) and stopped by TestMain; each
// test drives a tab of its own.
var (
	chromeOnce sync.Once
	chromeCtx  context.Context
	chromeStop = func() {}
	chromeErr  error
)

// browser opens a tab of the test run's headless Chromium for the test,
// closed when the test ends.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	chromeOnce.Do(func() {
		// Chromium's own temporary files (its singleton socket) go into
		// a folder removed with it: a run leaves nothing behind in the
		// temporary folder.
		tmp, err := os.MkdirTemp("", "sidebar-chromium-")
		if err != nil {
			chromeErr = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(exe),
			chromedp.WindowSize(1440, 1080),
			chromedp.Flag("no-sandbox", os.Geteuid() == 0),
			chromedp.Env("TMPDIR="+tmp),
		)
		actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(actx)
		chromeCtx, chromeStop = ctx, func() {
			cancel()
			acancel()
			os.RemoveAll(tmp)
		}
		chromeErr = chromedp.Do(ctx)
	})
	if chromeErr != nil {
		t.Fatalf("starting Chromium: %v", chromeErr)
	}
	ctx, cancel := chromedp.NewContext(chromeCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return ctx
}

// serve runs the sidebar command itself (the flags a user gives) on a free
// loopback port and returns the page's URL.
func serve(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), io.Discard, os.Stderr, func(u string) { ready <- u })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("sidebar: %v", err)
		}
	})
	select {
	case u := <-ready:
		return u
	case err := <-done:
		t.Fatalf("sidebar did not start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("sidebar did not start in 30 s")
	}
	return ""
}

// page drives one tab; every step fails the test on error.
type page struct {
	t   *testing.T
	ctx context.Context
}

func (p page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			p.t.Fatalf("the page did not reach the expected state in time: %v", err)
		}
		p.t.Fatal(err)
	}
}

// wait waits until the JavaScript expression is true. When it never is,
// the failure shows the page's state (the focused element, the inputs, the
// suggestions, the session line), so that a run on a loaded machine says
// what it saw.
func (p page) wait(expr string) {
	p.t.Helper()
	err := chromedp.Do(p.ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second)))
	if err == nil {
		return
	}
	state, serr := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify({
		focused: document.activeElement && (document.activeElement.id || document.activeElement.tagName),
		mention: document.querySelector('#mention-input') && document.querySelector('#mention-input').value,
		ask: document.querySelector('#ask-input') && document.querySelector('#ask-input').value,
		suggestions: [...document.querySelectorAll('#mention-list li')].map(li => li.dataset.path + (li.classList.contains('active') ? ' (active)' : '')),
		session: document.querySelector('[data-testid=session]') && document.querySelector('[data-testid=session]').textContent,
		turns: document.querySelectorAll('.turn').length,
		done: document.querySelectorAll('.turn.done').length,
	})`))
	if serr != nil {
		state = "(the page's state could not be read: " + serr.Error() + ")"
	}
	p.t.Fatalf("waiting for %s: %v\npage state: %s", expr, err, state)
}

// eval evaluates a JavaScript expression (awaiting a promise) into v.
func eval[T any](p page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

func (p page) text(sel string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`document.querySelector(%q).textContent`, sel))
}

// shot saves a screenshot of the page as name.png when -screenshots is set.
func (p page) shot(name string) {
	p.t.Helper()
	if *screenshots == "" {
		return
	}
	buf, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(*screenshots, name+".png"), buf, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// pageSource is a source link as the page shows it.
type pageSource struct {
	Href  string `json:"href"`
	URI   string `json:"uri"`
	Place string `json:"place"`
	Use   string `json:"use"`
}

// opened is what fetching a link from the page gave.
type opened struct {
	Status int    `json:"status"`
	Type   string `json:"type"`
	Head   string `json:"head"`
}

// TestBrowser drives the page in headless Chromium as a user does: the
// page comes from 127.0.0.1; a question shows each tool call while the
// turn runs, then the answer and the sources; every source link opens
// from the demo at its locator; the same scope continues the session and a
// changed scope (a mention added, then removed) says new session.
func TestBrowser(t *testing.T) {
	bctx := browser(t)
	addr := serve(t, "-pace", "250ms")
	u, err := url.Parse(addr)
	if err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("the page is served at %q, want 127.0.0.1", addr)
	}
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()
	p := page{t, ctx}

	// The starting state: the sample's scope as chips, its plan beside it.
	p.do(chromedp.Navigate(addr))
	// The page keeps to its own Content-Security-Policy: no inline style
	// or script is refused along the way.
	eval[int](p, `(window.cspViolations = [], document.addEventListener('securitypolicyviolation', e => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI)), 0)`)
	p.wait(`document.querySelectorAll('[data-testid=chips] .chip').length >= 4`)
	p.wait(`document.querySelector('[data-testid=fingerprint]').textContent.startsWith('sha256:')`)
	p.wait(`document.querySelectorAll('.doc-view .page').length > 0`)
	fp := p.text(`[data-testid=fingerprint]`)
	p.shot("sidebar-1-scope")

	// The turn: tool calls appear while it runs, before any source.
	askBox := eval[string](p, `JSON.stringify(document.querySelector('#ask-form').getBoundingClientRect())`)
	p.do(chromedp.Click(chromedp.CSS(`[data-testid=ask-send]`)))
	p.wait(`document.querySelectorAll('[data-testid=tool-call]').length >= 1 && document.querySelectorAll('[data-testid=source]').length === 0`)
	p.wait(`document.querySelectorAll('[data-testid=tool-call][data-status=completed]').length >= 2 && document.querySelectorAll('[data-testid=tool-call][data-status=running]').length === 1 && document.querySelectorAll('[data-testid=source]').length === 0`)
	p.shot("sidebar-2-streaming")
	// Nothing moves while the turn streams: the question box keeps its
	// place and size (the Cancel button was there all along, hidden).
	if box := eval[string](p, `JSON.stringify(document.querySelector('#ask-form').getBoundingClientRect())`); box != askBox {
		t.Errorf("the question box moved as the turn started: %s, before %s", box, askBox)
	}
	p.wait(`document.querySelectorAll('[data-testid=source]').length > 0 && !document.body.classList.contains('running')`)
	calls := eval[int](p, `document.querySelectorAll('[data-testid=tool-call]').length`)
	running := eval[int](p, `document.querySelectorAll('[data-testid=tool-call][data-status=running]').length`)
	if calls < 4 || running != 0 {
		t.Errorf("%d tool calls shown, %d still running", calls, running)
	}
	if s := p.text(`[data-testid=session]`); !strings.Contains(s, "new session") {
		t.Errorf("session line after the first turn: %q", s)
	}
	// The end of the answer and the sources in view.
	eval[int](p, `(() => { const c = document.getElementById('conversation'), s = document.querySelector('.turn .sources'); c.scrollTop += s.getBoundingClientRect().top - c.getBoundingClientRect().top - 120; return 0; })()`)
	p.shot("sidebar-3-sources")

	// Every source link opens from the demo at its locator.
	srcs := eval[[]pageSource](p, `[...document.querySelectorAll('a[data-testid=source]')].map(a => ({href: a.href, uri: a.dataset.uri, place: a.dataset.place, use: a.dataset.use}))`)
	if len(srcs) < 5 {
		t.Fatalf("%d source links", len(srcs))
	}
	places := map[string]int{}
	var note *pageSource
	for i, s := range srcs {
		places[s.Place]++
		_, frag, _ := strings.Cut(s.URI, "#")
		h, err := url.Parse(s.Href)
		if err != nil {
			t.Fatalf("source %s: href %q", s.URI, s.Href)
		}
		if s.Place == "outside" {
			if s.Href != s.URI || h.Scheme != "https" {
				t.Errorf("outside source %s opens %q", s.URI, s.Href)
			}
			continue
		}
		if h.Host != u.Host || !strings.HasPrefix(h.EscapedPath(), docPrefix) {
			t.Errorf("source %s opens %q, not from the demo", s.URI, s.Href)
		}
		if frag != "" && h.EscapedFragment() != frag {
			t.Errorf("source %s: the link %q lost its locator #%s", s.URI, s.Href, frag)
		}
		o := eval[opened](p, fmt.Sprintf(`fetch(%q).then(async r => ({status: r.status, type: r.headers.get('content-type'), head: (await r.text()).slice(0, 5)}))`, s.Href))
		want := "text/html; charset=utf-8"
		if strings.Contains(h.Path, ".pdf") {
			want = "application/pdf"
			if frag != "" && !strings.HasPrefix(frag, "page=") {
				t.Errorf("PDF source %s has locator %q, want #page=N", s.URI, frag)
			}
			if o.Head != "%PDF-" {
				t.Errorf("PDF source %s: the answer starts %q", s.URI, o.Head)
			}
		}
		if o.Status != 200 || o.Type != want {
			t.Errorf("source %s: %d %q, want 200 %q", s.Href, o.Status, o.Type, want)
		}
		if strings.HasPrefix(frag, "section=") && note == nil {
			note = &srcs[i]
		}
	}
	if places["grant"] == 0 || places["library"] == 0 || places["outside"] == 0 {
		t.Errorf("source places %v: want some in the grant, in the library and outside", places)
	}
	// A note opens at its section: the heading the locator names is the
	// page's target.
	if note == nil {
		t.Fatal("no source at a note's section")
	}
	tctx, closeTab := chromedp.NewContext(ctx)
	tab := page{t, tctx}
	tab.do(chromedp.Navigate(note.Href))
	tab.wait(`document.querySelector(':target') !== null`)
	_, frag, _ := strings.Cut(note.URI, "#")
	if got, want := eval[string](tab, `document.querySelector(':target').id`), unescape(t, frag); got != want {
		t.Errorf("note %s opened at %q, want %q", note.Href, got, want)
	}
	tab.shot("sidebar-5-note")
	closeTab()

	// The same scope continues the session.
	p.do(typeInto(`[data-testid=ask-input]`, "And what are the limitations?"),
		chromedp.Click(chromedp.CSS(`[data-testid=ask-send]`)))
	p.wait(`document.querySelectorAll('.turn.done').length === 2`)
	if s := p.text(`[data-testid=session]`); !strings.Contains(s, "continued session") {
		t.Errorf("session line after a turn with the same scope: %q", s)
	}

	// A mention added from the autocomplete changes the scope: new session.
	// The suggestions for the whole word arrive late, as on a loaded
	// machine: Enter pressed right after the last letter, while the list
	// for "surve" still shows, picks from the list for what is typed, not
	// the word as typed.
	eval[int](p, `(() => { const f = window.fetch; window.fetch = (u, o) => String(u).includes('/api/complete?q=survey') ? new Promise(r => setTimeout(r, 800)).then(() => f(u, o)) : f(u, o); return 0; })()`)
	p.do(chromedp.Focus(chromedp.CSS(`[data-testid=mention-input]`)),
		typeInto(`[data-testid=mention-input]`, "surve"))
	p.wait(`document.querySelector('#mention-list li.active') && document.querySelector('#mention-list li.active').dataset.path === 'papers/2406.09876'`)
	p.shot("sidebar-4-mention")
	p.do(chromedp.KeyEvent("y"), chromedp.KeyEvent("\r"))
	p.wait(`[...document.querySelectorAll('[data-testid=chip-mention]')].some(c => c.title.includes('papers/2406.09876'))`)
	p.wait(`document.querySelector('[data-testid=session]').textContent.includes('new session')`)
	if s := p.text(`[data-testid=session]`); !strings.Contains(s, "scope fingerprint changed") {
		t.Errorf("session line after adding a mention: %q", s)
	}
	if p.text(`[data-testid=fingerprint]`) == fp {
		t.Error("the plan's fingerprint did not change with the scope")
	}
	p.do(typeInto(`[data-testid=ask-input]`, "What does the survey advise?"),
		chromedp.Click(chromedp.CSS(`[data-testid=ask-send]`)))
	p.wait(`document.querySelectorAll('.turn.done').length === 3`)
	if s := p.text(`[data-testid=session]`); !strings.Contains(s, "opened a new session") || !strings.Contains(s, "scope fingerprint changed") || !strings.Contains(s, "handed over") {
		t.Errorf("session line after the turn with the new scope: %q", s)
	}
	p.do(chromedp.ScrollIntoView(chromedp.CSS(`.turn:last-child .turn-session`)))
	p.shot("sidebar-6-new-session")

	// Removing a mention is a scope change too.
	p.do(chromedp.Click(chromedp.CSS(`[data-testid=chip-mention]:last-of-type .chip-x`)))
	p.wait(`![...document.querySelectorAll('[data-testid=chip-mention]')].some(c => c.title.includes('papers/2406.09876'))`)
	p.wait(`document.querySelector('[data-testid=session]').textContent.includes('new session')`)

	// A path typed in full and Enter adds it at once, without waiting for
	// the suggestions.
	p.do(chromedp.Focus(chromedp.CSS(`[data-testid=mention-input]`)),
		typeInto(`[data-testid=mention-input]`, "notes/ideas.txt\r"))
	p.wait(`[...document.querySelectorAll('[data-testid=chip-mention]')].some(c => c.title.includes('notes/ideas.txt'))`)

	// The keyboard reaches everything: "/" focuses the question, "@" the
	// mention box, and every chip has a remove button with a label.
	p.do(chromedp.Blur(chromedp.CSS(`[data-testid=mention-input]`)), chromedp.KeyEvent("/"))
	p.wait(`document.activeElement === document.querySelector('[data-testid=ask-input]')`)
	p.do(chromedp.Blur(chromedp.CSS(`[data-testid=ask-input]`)), chromedp.KeyEvent("@"))
	p.wait(`document.activeElement === document.querySelector('[data-testid=mention-input]')`)
	if n := eval[int](p, `[...document.querySelectorAll('.chip .chip-x')].filter(b => !b.getAttribute('aria-label')).length`); n != 0 {
		t.Errorf("%d chip buttons without a label", n)
	}

	if v := eval[[]string](p, `window.cspViolations`); len(v) > 0 {
		t.Errorf("Content-Security-Policy violations: %v", v)
	}

	// Dark mode: the same page in the dark scheme.
	if *screenshots != "" {
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
			t.Fatal(err)
		}
		p.shot("sidebar-7-dark")
	}
}

// typeInto focuses the element and types text as key events. (chromedp's
// SendKeys reads the node's attributes while its DOM event handler writes
// them, a data race the race detector reports.)
func typeInto(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent(text))
}

func unescape(t *testing.T, s string) string {
	t.Helper()
	u, err := url.PathUnescape(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
