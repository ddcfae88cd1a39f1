package vault

import "github.com/researchctx/researchctx/internal/ocrpages"

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
