package vault

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
