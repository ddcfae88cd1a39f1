package mcp

import (
	"bufio"
	"errors"
	"io"
)

// errLineTooLong reports a line longer than a lineReader's cap. The line is
// consumed, so the reader goes on with the next one.
var errLineTooLong = errors.New("line too long")

// lineReader reads newline-terminated lines in memory bounded by its cap,
// whatever the input: a line above the cap is skipped without being held,
// so an input without newlines costs one buffer, not its size.
type lineReader struct {
	r   *bufio.Reader
	off int64 // bytes consumed through the last line returned or skipped
}

// newLineReader returns a lineReader over r for lines of at most max bytes,
// newline included.
func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, max)}
}

// Next returns the next line, newline included; the slice is valid until
// the next call. A line above the cap is consumed and reported as
// errLineTooLong. A last line without a newline (a torn write, or one still
// being written) is returned with io.ErrUnexpectedEOF and not counted in
// Offset. At the end Next returns io.EOF.
func (l *lineReader) Next() ([]byte, error) {
	line, err := l.r.ReadSlice('\n')
	switch {
	case err == nil:
		l.off += int64(len(line))
		return line, nil
	case errors.Is(err, bufio.ErrBufferFull):
		n := int64(len(line))
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = l.r.ReadSlice('\n')
			n += int64(len(line))
		}
		switch err {
		case nil:
			l.off += n
			return nil, errLineTooLong
		case io.EOF:
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	case err == io.EOF && len(line) > 0:
		return line, io.ErrUnexpectedEOF
	}
	return nil, err
}

// Offset returns the number of bytes consumed through the last complete
// line, returned or skipped.
func (l *lineReader) Offset() int64 { return l.off }
