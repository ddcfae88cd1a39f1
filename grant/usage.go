package grant

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/researchctx/researchctx/internal/safefs"
)

// UsageLine is one line of usage.jsonl: one tool call of one turn.
type UsageLine struct {
	At     time.Time `json:"at"`
	TurnID string    `json:"turnId"`
	Tool   string    `json:"tool"`
	URIs   []string  `json:"uris"`
	Chars  int       `json:"chars"`
	// Settles names the reservation (see UsageLog) this call was built
	// within; empty for a line written without one.
	Settles string `json:"settles,omitempty"`
}

// maxUsageLine bounds one line so the append stays a single small write. A
// longer line in the file is skipped without being held in memory.
const maxUsageLine = 1 << 20

// AppendUsage appends one line to the usage log at path with a single write
// on a file opened with O_APPEND, under the log's lock, so concurrent
// servers never interleave or lose lines. The file is created 0600. Tools
// that serve a budget append through a UsageLog reservation instead.
func AppendUsage(path string, l UsageLine) error {
	data, err := marshalUsage(l)
	if err != nil {
		return err
	}
	return withUsageLock(path, func(f *safefs.File, st os.FileInfo) error {
		_, err := appendRecord(f, data, tornTail(f, st.Size()))
		return err
	})
}

// marshalUsage encodes a usage line, newline included.
func marshalUsage(l UsageLine) ([]byte, error) {
	if l.At.IsZero() {
		l.At = time.Now()
	}
	l.At = l.At.UTC()
	if l.URIs == nil {
		l.URIs = []string{}
	}
	data, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	if len(data) >= maxUsageLine {
		return nil, fmt.Errorf("usage line of %d bytes is too long", len(data))
	}
	return append(data, '\n'), nil
}

// Usage is what a turn used, read back from usage.jsonl.
type Usage struct {
	Calls   int         // tool calls of the turn
	Chars   int         // text characters returned to the agent, summed (saturating)
	Sources []string    // distinct citation URIs, in order of first use
	Skipped int         // lines of the file that could not be read (torn or corrupt)
	Lines   []UsageLine // the turn's lines, in the order they were appended
}

// ReadUsage reads the usage log at path and sums the lines of one turn. A
// missing file is an empty Usage. Torn or corrupt lines are skipped and
// counted in Skipped, never fatal; reservation records (see UsageLog) are
// not calls and are passed over. Sums saturate at the largest int.
func ReadUsage(path, turnID string) (Usage, error) {
	var u Usage
	f, err := openUsage(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, err
	}
	defer f.Close()
	if err := checkUsageRead(f, 0); err != nil {
		return u, err
	}
	seen := map[string]bool{}
	_, err = scanUsage(f, func(line []byte, ok bool) {
		if !ok {
			u.Skipped++
			return
		}
		rec, kind := parseUsage(line)
		switch {
		case kind == recBlank, kind == recReserve, kind == recRelease:
		case kind == recCorrupt:
			u.Skipped++
		case rec.TurnID == turnID:
			u.Calls++
			u.Chars = addChars(u.Chars, rec.Chars)
			u.Lines = append(u.Lines, UsageLine{At: rec.At, TurnID: rec.TurnID, Tool: rec.Tool, URIs: rec.URIs, Chars: rec.Chars})
			for _, uri := range rec.URIs {
				if uri != "" && !seen[uri] {
					seen[uri] = true
					u.Sources = append(u.Sources, uri)
				}
			}
		}
	})
	if err != nil {
		return u, fmt.Errorf("reading the usage log: %w", err)
	}
	return u, nil
}

// SumUsage adds the characters of every turn's lines in the usage log at
// path, read from byte offset from, to sums (keyed by turn id). It returns
// the offset after the last complete line, so a caller can keep its sums and
// read only what was appended since, by any process: a torn last line is
// left for the next call. A missing file adds nothing. Sums saturate.
// Reservations in flight are not counted: a UsageLog counts them.
func SumUsage(path string, from int64, sums map[string]int) (next int64, err error) {
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

// usageRecord is any line of usage.jsonl: a call (UsageLine's fields), a
// reservation, or the release of one.
type usageRecord struct {
	At      time.Time      `json:"at"`
	TurnID  string         `json:"turnId"`
	Tool    string         `json:"tool"`
	URIs    []string       `json:"uris"`
	Chars   int            `json:"chars"`
	Settles string         `json:"settles"`
	Reserve *reserveRecord `json:"reserve"`
	Release string         `json:"release"`
}

// reserveRecord is the body of a reservation line. Its fields are nested
// under "reserve" so a reader that sums the top-level chars of a turn's
// lines, as SPEC §6 describes, never counts a reservation.
type reserveRecord struct {
	ID     string `json:"id"`
	TurnID string `json:"turnId"`
	Chars  int    `json:"chars"`
	PID    int    `json:"pid"`
	Host   string `json:"host"`
}

type recKind int

const (
	recBlank recKind = iota
	recCorrupt
	recCall
	recReserve
	recRelease
)

// parseUsage classifies one complete line.
func parseUsage(line []byte) (usageRecord, recKind) {
	var r usageRecord
	if len(bytes.TrimSpace(line)) == 0 {
		return r, recBlank
	}
	if json.Unmarshal(line, &r) != nil {
		return r, recCorrupt
	}
	switch {
	case r.Tool != "":
		if r.Chars < 0 {
			return r, recCorrupt
		}
		return r, recCall
	case r.Reserve != nil && r.Reserve.ID != "" && r.Reserve.Chars >= 0:
		return r, recReserve
	case r.Release != "":
		return r, recRelease
	}
	return r, recCorrupt
}

// scanUsage calls fn for every line of r: a complete line with ok true, a
// line longer than maxUsageLine (skipped, never held whole) or a torn last
// line with ok false. It returns the bytes consumed up to the end of the
// last complete line, so a torn last line is read again next time.
func scanUsage(r io.Reader, fn func(line []byte, ok bool)) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var consumed, pending int64 // pending: bytes of the unfinished line
	var buf []byte              // the unfinished line, when it spans reads
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		pending += int64(len(chunk))
		if !tooLong {
			if pending > maxUsageLine {
				tooLong, buf = true, nil
			} else if err != nil || buf != nil {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			switch {
			case tooLong:
				fn(nil, false)
			case buf != nil:
				fn(buf, true)
			default:
				fn(chunk, true)
			}
			consumed += pending
			pending, buf, tooLong = 0, nil, false
		case errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			if pending > 0 {
				fn(nil, false)
			}
			return consumed, nil
		default:
			return consumed, err
		}
	}
}

// addChars adds n to sum, saturating at the largest int; a negative n adds
// nothing. A forged or corrupt usage log can make the sum large, never wrap
// it to a small number.
func addChars(sum, n int) int {
	if n <= 0 {
		return sum
	}
	if sum > math.MaxInt-n {
		return math.MaxInt
	}
	return sum + n
}
