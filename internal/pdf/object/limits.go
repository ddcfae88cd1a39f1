package object

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrTooLarge is the error a *LimitError matches: the file, a page or a
// stream exceeds one of the extraction limits.
var ErrTooLarge = errors.New("pdf: too large")

// Limit names one of the bounds on extraction.
type Limit string

// The limits the object reader enforces, and LimitTime, which
// LimitError prints as a duration.
const (
	LimitTime        Limit = "time per document"     // the extraction's timeout
	LimitObjects     Limit = "objects per file"      // MaxObjects, and one per 16 bytes of the file
	LimitObjectBytes Limit = "object bytes per file" // the file's size and 1 MiB
)

// Fixed limits of the object reader.
const (
	// MaxStreamBytes bounds one decoded stream.
	MaxStreamBytes = 32 << 20
	// MaxObjectNesting bounds arrays and dictionaries nested in the
	// file's objects; pdfcpu enforces it while parsing, and the lazy
	// reader leaves a file nested near it to pdfcpu.
	MaxObjectNesting = 100
	// MaxObjects bounds the objects of one file: its cross-reference
	// entries, the /Size of each section and the objects its object
	// streams claim, all checked before pdfcpu allocates for them. A
	// file is also allowed only one object per 16 bytes of its size (at
	// least 4,096), and pdfcpu may read its objects' bytes about once
	// (LimitObjectBytes).
	MaxObjects = 1 << 16
)

// LimitError reports which limit a document or page exceeded. It matches
// ErrTooLarge with errors.Is.
type LimitError struct {
	Limit Limit
	Max   int64 // the limit's value (bytes, count, or nanoseconds for LimitTime)
	Page  int   // 1-based page, 0 for the document
}

// Error says which limit was exceeded, and where.
func (e *LimitError) Error() string {
	max := strconv.FormatInt(e.Max, 10)
	if e.Limit == LimitTime {
		max = time.Duration(e.Max).String()
	}
	if e.Page > 0 {
		return fmt.Sprintf("pdf: too large: page %d exceeds the %s limit of %s", e.Page, e.Limit, max)
	}
	return fmt.Sprintf("pdf: too large: the document exceeds the %s limit of %s", e.Limit, max)
}

// Is reports whether target is ErrTooLarge.
func (e *LimitError) Is(target error) bool { return target == ErrTooLarge }
