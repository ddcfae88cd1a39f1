package vault

import (
	"context"
	"time"

	"github.com/researchctx/researchctx/internal/ocrpages"
)

// NewLibrary returns a Library over an open Vault, for the tests: hosts
// open one with OpenLibrary.
var NewLibrary = newLibrary

// The OCR memory bounds, for the tests.
var OCRBackground = ocrBackground

const (
	OCRPageBudget = ocrPageBudget
	OCRMemory     = ocrMemory
	OCRReadSlots  = ocrReadSlots
)

// ocrLines groups recognised words into lines, for the internal tests.
var ocrLines = ocrpages.Lines

// BeginCall counts a call in flight on l until end is called, as a
// search or a read does.
func BeginCall(l *Library, ctx context.Context) (context.Context, func()) {
	return l.calls.Begin(ctx)
}

// BackgroundHeld returns how many background workers wait for the calls
// now, and how many times one did.
func BackgroundHeld(l *Library) (now int, total int64) {
	return l.calls.Held()
}

// RescanDirectory rescans the directory source src as the background does
// once its scan is older than restamp, and returns when it is done. A
// rescan in flight (one a search started) ends first, so that this one's
// state is the one kept.
func RescanDirectory(src any) {
	d := src.(*Directory)
	for {
		d.mu.Lock()
		if !d.refreshing {
			st := d.state
			d.refreshing = true
			d.mu.Unlock()
			d.refresh(st)
			return
		}
		d.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
}
