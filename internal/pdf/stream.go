package pdf

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
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
	sd.Content, err = decodeStream(&sd, limit)
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

// decodeStream decodes sd, not yet decoded, into at most limit bytes (else
// filter.ErrDecodeLimitExceeded). Most streams, plain Flate, are decoded
// here with a reused decompressor, as pdfcpu would (see inflate), without
// its allocations.
func decodeStream(sd *types.StreamDict, limit int64) ([]byte, error) {
	if plainFlate(sd) {
		return inflate(sd.Raw, limit)
	}
	err := sd.DecodeWithLimit(limit)
	return sd.Content, err
}

// inflaters holds zlib decompressors for reuse: each holds a 32 KiB
// window and tables that are otherwise allocated for every stream.
var inflaters sync.Pool

// plainFlate reports whether a stream, not yet decoded, has the one filter
// FlateDecode without parameters: what inflate decodes.
func plainFlate(sd *types.StreamDict) bool {
	f := sd.FilterPipeline
	return sd.Content == nil && len(f) == 1 && f[0].Name == filter.Flate && f[0].DecodeParms == nil
}

// inflater returns a zlib reader of raw from the pool; put it back with
// inflaters.Put.
func inflater(raw []byte) (io.ReadCloser, error) {
	br := bytes.NewReader(raw)
	if zr, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := zr.(zlib.Resetter).Reset(br, nil); err != nil {
			inflaters.Put(zr)
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(br)
}

// inflate decodes a FlateDecode stream without predictor as pdfcpu's
// filter does: a stream cut short keeps what it gave, a corrupt one or
// one whose checksum fails is an error, and more than limit bytes is
// filter.ErrDecodeLimitExceeded.
func inflate(raw []byte, limit int64) ([]byte, error) {
	zr, err := inflater(raw)
	if err != nil {
		return nil, err
	}
	defer inflaters.Put(zr)
	// Content streams compress about fourfold; the buffer grows when not.
	out := make([]byte, 0, min(limit+1, int64(max(4*len(raw), 512))))
	for {
		if len(out) == cap(out) {
			if int64(len(out)) > limit {
				return nil, filter.ErrDecodeLimitExceeded
			}
			out = slices.Grow(out, int(min(int64(cap(out)), limit+1-int64(len(out)))))
		}
		n, err := zr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if int64(len(out)) > limit {
			return nil, filter.ErrDecodeLimitExceeded
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return out, nil
		default:
			return nil, err
		}
	}
}

// inflatePrefix decodes the first n bytes of a FlateDecode stream without
// predictor, as pdfcpu's filter does when asked for a length: an error
// when the stream gives fewer.
func inflatePrefix(raw []byte, n int64) ([]byte, error) {
	zr, err := inflater(raw)
	if err != nil {
		return nil, err
	}
	defer inflaters.Put(zr)
	out := make([]byte, n)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	return out, nil
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
	if plainFlate(&sd) {
		b, err = inflatePrefix(sd.Raw, n)
	} else {
		b, err = sd.DecodeLengthWithLimit(n, min(d.budget, MaxStreamBytes))
	}
	if err != nil || int64(len(b)) != n {
		return nil
	}
	d.budget -= n
	return b
}
