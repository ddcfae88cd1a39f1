package usage

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/researchctx/researchctx/internal/safefs"
)

// Two ways at the log that the server does not take, for the tests: an
// append outside a reservation, and a sum of every turn from an offset.

// appendLine appends one line to the usage log at path with a single write
// on a file opened with O_APPEND, under the log's lock, so concurrent
// servers never interleave or lose lines. The file is created 0600. Tools
// that serve a budget append through a Log reservation instead.
func appendLine(path string, l Line) error {
	data, err := marshalUsage(l)
	if err != nil {
		return err
	}
	return withUsageLock(path, func(f *safefs.File, st os.FileInfo) error {
		_, err := appendRecord(f, data, tornTail(f, st.Size()))
		return err
	})
}

// sumTurns adds the characters of every turn's lines in the usage log at
// path, read from byte offset from, to sums (keyed by turn id). It returns
// the offset after the last complete line, so a caller can keep its sums and
// read only what was appended since, by any process: a torn last line is
// left for the next call. A missing file adds nothing. Sums saturate.
// Reservations in flight are not counted: a Log counts them.
func sumTurns(path string, from int64, sums map[string]int) (next int64, err error) {
	f, err := openUsage(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return from, nil
	}
	if err != nil {
		return from, err
	}
	defer f.Close()
	if err := checkUsageRead(f, from); err != nil {
		return from, err
	}
	n, err := scanUsage(io.NewSectionReader(f, from, math.MaxInt64-from), func(line []byte, ok bool) {
		if rec, kind := parseUsage(line); ok && kind == recCall {
			sums[rec.TurnID] = addChars(sums[rec.TurnID], rec.Chars)
		}
	})
	if err != nil {
		return from + n, fmt.Errorf("reading the usage log: %w", err)
	}
	return from + n, nil
}
