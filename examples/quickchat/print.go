package main

import (
	"fmt"
	"io"
	"os"

	"github.com/researchctx/researchctx/sources"
)

// printer writes the demo's human-readable output, with colours and OSC 8
// hyperlinks only when it writes to a terminal (and NO_COLOR is unset).
type printer struct {
	w     io.Writer
	color bool
}

func newPrinter(w io.Writer) *printer {
	p := &printer{w: w}
	if f, ok := w.(*os.File); ok && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.color = true
		}
	}
	return p
}

func (p *printer) sgr(code, s string) string {
	if !p.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p *printer) bold(s string) string { return p.sgr("1", s) }
func (p *printer) dim(s string) string  { return p.sgr("2", s) }
func (p *printer) red(s string) string  { return p.sgr("31", s) }
func (p *printer) cyan(s string) string { return p.sgr("36", s) }

// link renders text as an OSC 8 hyperlink to url on a terminal, and as the
// text alone elsewhere.
func (p *printer) link(url, text string) string {
	if !p.color {
		return text
	}
	return "\x1b]8;;" + url + "\x1b\\" + p.sgr("4;34", text) + "\x1b]8;;\x1b\\"
}

func (p *printer) line(s string)  { fmt.Fprintln(p.w, s) }
func (p *printer) title(s string) { p.line(p.bold(s)) }

func (p *printer) step(n, s string) {
	p.line("")
	p.line(p.bold(n + ". " + s))
}

func (p *printer) kv(k, v string) { p.line(fmt.Sprintf("   %-14s %s", k, v)) }

// block prints text indented behind a bar, as quoted output. Like every
// indented rendering it splits at each line break a terminal may honour
// (sources.SplitLines), so no line of text escapes its indent.
func (p *printer) block(text string) {
	for _, l := range sources.SplitLines(text) {
		p.line("   " + p.dim("│") + " " + l)
	}
}

func (p *printer) call(tool, args, note string) {
	s := "   " + p.cyan("→ "+tool) + " " + args
	if note != "" {
		s += "  " + p.dim("# "+note)
	}
	p.line(s)
}

// result prints a tool result under its call: the first line behind an
// arrow, the others indented to match.
func (p *printer) result(text string) {
	for i, l := range sources.SplitLines(text) {
		mark := " "
		if i == 0 {
			mark = p.dim("←")
		}
		p.line("     " + mark + " " + l)
	}
}

func (p *printer) prompt() { fmt.Fprint(p.w, p.bold("> ")) }
