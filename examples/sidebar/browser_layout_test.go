package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// layoutProblems lists, in the page as drawn, what a user of a narrow
// sidebar meets: an element reaching past the viewport's left or right
// edge (clipped), two of the main panels overlapping, and a control that
// is cut or covered where it stands. Elements inside an element that
// clips its content (an ellipsis, a scrolled list) are judged by that
// element's box.
const layoutProblems = `(() => {
  const W = document.documentElement.clientWidth, H = window.innerHeight;
  const out = [];
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '');
  const shown = (e) => { const s = getComputedStyle(e); return s.display !== 'none' && s.visibility !== 'hidden' && e.getClientRects().length > 0 && !e.closest('[hidden], .visually-hidden, details:not([open]) > :not(summary)'); };
  const clipped = (e) => { for (let a = e.parentElement; a; a = a.parentElement) { const s = getComputedStyle(a); if (s.overflowX !== 'visible') return true; } return false; };
  if (document.documentElement.scrollWidth > W + 1) out.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px wide in ' + W);
  for (const e of document.body.querySelectorAll('*')) {
    if (!shown(e) || clipped(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0) continue;
    if (r.left < -1 || r.right > W + 1) out.push('clipped: ' + name(e) + ' spans ' + Math.round(r.left) + '–' + Math.round(r.right) + ' in ' + W);
  }
  const panels = ['.top', '.doc', '.scope', '.plan', '#session', '#conversation', '#ask-form'].map((s) => document.querySelector(s)).filter((e) => e && shown(e));
  for (let i = 0; i < panels.length; i++) for (let j = i + 1; j < panels.length; j++) {
    const a = panels[i].getBoundingClientRect(), b = panels[j].getBoundingClientRect();
    const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (w > 1 && h > 1) out.push('overlap: ' + name(panels[i]) + ' and ' + name(panels[j]) + ' by ' + Math.round(w) + '×' + Math.round(h));
  }
  for (const c of document.querySelectorAll('button, input, select, textarea, summary')) {
    if (!shown(c)) continue;
    const r = c.getBoundingClientRect();
    if (r.width < 8 || r.height < 8) { out.push('control too small: ' + name(c)); continue; }
    if (r.left < -1 || r.right > W + 1) { out.push('control cut: ' + name(c)); continue; }
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    if (y < 0 || y > H) continue; // scrolled out of view: it scrolls back
    const hit = document.elementFromPoint(x, y);
    // The open suggestions cover what lies below them, as a list does.
    if (hit && hit.closest('#mention-list')) continue;
    if (hit && hit !== c && !c.contains(hit) && !(c.labels && [...c.labels].some((l) => l.contains(hit)))) out.push('control covered: ' + name(c) + ' under ' + name(hit));
  }
  return out;
})()`

// TestBrowserWidths draws the page at a phone's width, a real sidebar's,
// a tablet's and a desktop's, each after a reload over a finished turn:
// the conversation comes back with its session line (not a turn number
// over an empty conversation), nothing is clipped, no panels overlap and
// every control is reachable, the suggestions open included. Then the
// autocomplete offers nothing the scope holds and a mention typed again
// adds no chip. With -screenshots it saves the narrow widths' pictures.
func TestBrowserWidths(t *testing.T) {
	bctx := browser(t)
	// No pause over the scripted calls: the layout after the turn is
	// checked, not the stream.
	addr := serve(t, "-pace", "0")
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()
	p := page{t, ctx}

	p.do(chromedp.Navigate(addr))
	p.wait(`document.querySelectorAll('[data-testid=chips] .chip').length >= 4`)
	p.do(chromedp.Click(chromedp.CSS(`[data-testid=ask-send]`)))
	p.wait(`document.querySelectorAll('.turn.done').length === 1 && document.querySelectorAll('[data-testid=source]').length > 0`)

	for _, w := range []int{360, 420, 768, 1024, 1440} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			p := page{t, ctx}
			if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: int64(w), Height: 900, DeviceScaleFactor: 1}); err != nil {
				t.Fatal(err)
			}
			// A reload at this width: the conversation comes back.
			p.do(chromedp.Reload())
			p.wait(`document.querySelectorAll('[data-testid=chips] .chip').length >= 4 && document.querySelector('[data-testid=fingerprint]').textContent.startsWith('sha256:')`)
			p.wait(`document.querySelectorAll('.turn.done').length === 1 && document.querySelectorAll('[data-testid=source]').length > 0`)
			// ... in view: the conversation has room and its turn shows.
			if h := eval[float64](p, `document.querySelector('#conversation .turn').getBoundingClientRect().height`); h < 100 {
				t.Errorf("the restored turn is %.0f px high", h)
			}
			if s := p.text(`[data-testid=session]`); !strings.HasPrefix(s, "Turn 1 ") {
				t.Errorf("session line after a reload over one turn: %q", s)
			}
			for _, where := range []string{"top", "sources"} {
				if where == "sources" {
					eval[int](p, `(() => { const c = document.getElementById('conversation'), s = document.querySelector('.turn .sources'); c.scrollTop += s.getBoundingClientRect().top - c.getBoundingClientRect().top - 40; s.scrollIntoView({block: 'nearest'}); return 0; })()`)
				}
				if probs := eval[[]string](p, layoutProblems); len(probs) > 0 {
					t.Errorf("at %d px (%s), %d problems:\n%s", w, where, len(probs), strings.Join(probs, "\n"))
				}
				if where == "sources" && w < 900 {
					p.shot(fmt.Sprintf("sidebar-8-width-%d", w))
				}
			}
			// Chinese, Japanese and Korean text falls back to the CJK fonts
			// the README names (Debian's fonts-noto-cjk), after the Latin
			// ones.
			for sel, want := range map[string]string{"body": `"Noto Sans CJK SC"`, ".page-text": `"Noto Serif CJK SC"`, ".it-title": `"Noto Sans CJK SC"`} {
				if f := eval[string](p, fmt.Sprintf(`getComputedStyle(document.querySelector(%q)).fontFamily`, sel)); !strings.Contains(f, want) {
					t.Errorf("%s's fonts are %s: no %s", sel, f, want)
				}
			}
			// The autocomplete list opens within the page too.
			p.do(chromedp.Focus(chromedp.CSS(`[data-testid=mention-input]`)))
			p.wait(`document.querySelectorAll('#mention-list li').length > 0`)
			if probs := eval[[]string](p, layoutProblems); len(probs) > 0 {
				t.Errorf("at %d px with the suggestions open: %s", w, strings.Join(probs, "\n"))
			}
			p.do(chromedp.Blur(chromedp.CSS(`[data-testid=mention-input]`)))
		})
	}

	// The autocomplete offers nothing the scope holds (the sample mentions
	// notes): not notes, nothing inside it; a path typed again, with an @
	// or a slash, adds no second chip.
	p.do(typeInto(`[data-testid=mention-input]`, "note"))
	p.wait(`document.querySelectorAll('#mention-list li').length > 0`)
	if got := eval[[]string](p, `[...document.querySelectorAll('#mention-list li')].map(li => li.dataset.path)`); len(got) > 0 {
		for _, g := range got {
			if g == "notes" || strings.HasPrefix(g, "notes/") {
				t.Errorf("the autocomplete offers %s, which the scope holds: %v", g, got)
			}
		}
	}
	chips := `document.querySelectorAll('[data-testid=chip-mention]').length`
	before := eval[int](p, chips)
	// The page's own addMention, as Enter calls it with the path typed.
	p.do(chromedp.Blur(chromedp.CSS(`[data-testid=mention-input]`)))
	for _, typed := range []string{"notes/", "@notes", " reading-list/ "} {
		eval[int](p, fmt.Sprintf(`(addMention(%q), 0)`, typed))
		if n := eval[int](p, chips); n != before {
			t.Errorf("after adding %q: %d mention chips, want %d", typed, n, before)
		}
	}
}
