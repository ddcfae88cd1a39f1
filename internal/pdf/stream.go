package pdf

import (
	"errors"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/pdf/object"
)

// streamBytes decodes a stream, bounded by MaxStreamBytes and what is left
// of the document's budget (which it spends). A stream over the limit is
// a *LimitError; one that does not decode is nil without error, as for a
// missing object.
func (d *doc) streamBytes(sd types.StreamDict) ([]byte, error) {
	if d.spent == nil && d.budget <= 0 {
		// Checked here: pdfcpu reads a limit of 0 as its default.
		d.spent = &LimitError{Limit: LimitDocBytes, Max: MaxDocumentBytes}
	}
	if d.spent != nil {
		return nil, d.spent
	}
	limit, kind := int64(MaxStreamBytes), LimitStreamBytes
	if d.budget < limit {
		limit, kind = d.budget, LimitDocBytes
	}
	var err error
	sd.Content, err = object.DecodeStream(&sd, limit)
	if errors.Is(err, filter.ErrDecodeLimitExceeded) || int64(len(sd.Content)) > limit {
		if kind == LimitDocBytes {
			d.budget = 0
			d.spent = &LimitError{Limit: LimitDocBytes, Max: MaxDocumentBytes}
			return nil, d.spent
		}
		d.budget -= limit
		return nil, &LimitError{Limit: LimitStreamBytes, Max: MaxStreamBytes}
	}
	if err != nil && len(sd.Content) == 0 {
		return nil, nil
	}
	d.budget -= int64(len(sd.Content))
	return sd.Content, nil
}

// streamPrefix decodes the first n bytes of a stream, spending them of
// the document's budget. It returns nil when the stream is shorter, does
// not decode, or n is over what may be decoded: the caller then decodes
// the whole stream with streamBytes, which applies the limits.
func (d *doc) streamPrefix(sd types.StreamDict, n int64) []byte {
	if d.spent != nil || n > d.budget || n > MaxStreamBytes {
		return nil
	}
	var b []byte
	var err error
	if object.PlainFlate(&sd) {
		b, err = object.InflatePrefix(sd.Raw, n)
	} else {
		b, err = sd.DecodeLengthWithLimit(n, min(d.budget, MaxStreamBytes))
	}
	if err != nil || int64(len(b)) != n {
		return nil
	}
	d.budget -= n
	return b
}
