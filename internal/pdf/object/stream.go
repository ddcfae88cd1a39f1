package object

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

// DecodeStream decodes sd, not yet decoded, into at most limit bytes (else
// filter.ErrDecodeLimitExceeded). Most streams, plain Flate, are decoded
// here with a reused decompressor, as pdfcpu would (see inflate), without
// its allocations.
func DecodeStream(sd *types.StreamDict, limit int64) ([]byte, error) {
	if PlainFlate(sd) {
		return inflate(sd.Raw, limit)
	}
	err := sd.DecodeWithLimit(limit)
	return sd.Content, err
}

// inflaters holds zlib decompressors for reuse: each holds a 32 KiB
// window and tables that are otherwise allocated for every stream.
var inflaters sync.Pool

// PlainFlate reports whether a stream, not yet decoded, has the one filter
// FlateDecode without parameters: what inflate decodes.
func PlainFlate(sd *types.StreamDict) bool {
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

// InflatePrefix decodes the first n bytes of a FlateDecode stream without
// predictor, as pdfcpu's filter does when asked for a length: an error
// when the stream gives fewer.
func InflatePrefix(raw []byte, n int64) ([]byte, error) {
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
