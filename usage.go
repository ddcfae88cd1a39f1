package researchctx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
}

// maxUsageLine bounds one line so the append stays a single small write.
const maxUsageLine = 1 << 20

// AppendUsage appends one line to the usage log at path with a single write
// on a file opened with O_APPEND, so concurrent servers never interleave or
// lose lines. The file is created 0600.
func AppendUsage(path string, l UsageLine) error {
	if l.At.IsZero() {
		l.At = time.Now()
	}
	l.At = l.At.UTC()
	if l.URIs == nil {
		l.URIs = []string{}
	}
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if len(data) >= maxUsageLine {
		return fmt.Errorf("usage line of %d bytes is too long", len(data))
	}
	data = append(data, '\n')
	f, err := openUsage(path, true)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("appending to the usage log: %w", werr)
	}
	return cerr
}

// Usage is what a turn used, read back from usage.jsonl.
type Usage struct {
	Calls   int      // tool calls of the turn
	Chars   int      // text characters returned to the agent, summed
	Sources []string // distinct citation URIs, in order of first use
	Skipped int      // lines of the file that could not be read (torn or corrupt)
}

// ReadUsage reads the usage log at path and sums the lines of one turn. A
// missing file is an empty Usage. Torn or corrupt lines, and lines over
// 1 MiB, are skipped and counted in Skipped, never fatal; memory stays
// bounded whatever the file holds. A log that is a symbolic link (or under
// one, from .agentero down), is not a regular file, or holds more than
// 64 MiB is an error.
func ReadUsage(path, turnID string) (Usage, error) {
	var u Usage
	f, err := openUsage(path, false)
	if f == nil {
		return u, err
	}
	defer f.Close()
	lr, err := usageLines(f, 0)
	if err != nil {
		return u, err
	}
	seen := map[string]bool{}
	for {
		line, err := lr.Next()
		var l UsageLine
		switch {
		case err == io.EOF:
			return u, nil
		case errors.Is(err, safefs.ErrLineTooLong), err == io.ErrUnexpectedEOF:
			u.Skipped++
			continue
		case err != nil:
			return u, fmt.Errorf("reading the usage log: %w", err)
		case len(bytes.TrimSpace(line)) == 0:
		case json.Unmarshal(line, &l) != nil || l.Tool == "" || l.Chars < 0:
			u.Skipped++
		case l.TurnID == turnID:
			u.Calls++
			u.Chars += l.Chars
			for _, uri := range l.URIs {
				if uri != "" && !seen[uri] {
					seen[uri] = true
					u.Sources = append(u.Sources, uri)
				}
			}
		}
	}
}

// SumUsage adds the characters of every turn's lines in the usage log at
// path, read from byte offset from, to sums (keyed by turn id). It returns
// the offset after the last complete line, so a caller can keep its sums and
// read only what was appended since, by any process: a torn last line is
// left for the next call. A missing file adds nothing.
func SumUsage(path string, from int64, sums map[string]int) (next int64, err error) {
	f, err := openUsage(path, false)
	if f == nil {
		return from, err
	}
	defer f.Close()
	lr, err := usageLines(f, from)
	if err != nil {
		return from, err
	}
	for {
		line, err := lr.Next()
		switch {
		case err == io.EOF, err == io.ErrUnexpectedEOF:
			return from + lr.Offset(), nil
		case errors.Is(err, safefs.ErrLineTooLong):
			continue
		case err != nil:
			return from + lr.Offset(), fmt.Errorf("reading the usage log: %w", err)
		}
		var l struct {
			TurnID string `json:"turnId"`
			Chars  int    `json:"chars"`
		}
		if json.Unmarshal(line, &l) == nil && l.Chars > 0 {
			sums[l.TurnID] += l.Chars
		}
	}
}
