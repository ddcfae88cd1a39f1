package researchctx

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
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
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening the usage log: %w", errors.Unwrap(err))
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("appending to the usage log: %w", errors.Unwrap(werr))
	}
	return cerr
}

// Usage is what a turn used, read back from usage.jsonl.
type Usage struct {
	Calls   int         // tool calls of the turn
	Chars   int         // text characters returned to the agent, summed
	Sources []string    // distinct citation URIs, in order of first use
	Skipped int         // lines of the file that could not be read (torn or corrupt)
	Lines   []UsageLine // the turn's lines, in the order they were appended
}

// ReadUsage reads the usage log at path and sums the lines of one turn. A
// missing file is an empty Usage. Torn or corrupt lines are skipped and
// counted in Skipped, never fatal.
func ReadUsage(path, turnID string) (Usage, error) {
	var u Usage
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, fmt.Errorf("opening the usage log: %w", errors.Unwrap(err))
	}
	defer f.Close()
	seen := map[string]bool{}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			complete := line[len(line)-1] == '\n'
			var l UsageLine
			switch {
			case !complete, len(line) > maxUsageLine:
				u.Skipped++
			case len(bytes.TrimSpace(line)) == 0:
			case json.Unmarshal(line, &l) != nil || l.Tool == "" || l.Chars < 0:
				u.Skipped++
			case l.TurnID == turnID:
				u.Calls++
				u.Chars += l.Chars
				u.Lines = append(u.Lines, l)
				for _, uri := range l.URIs {
					if uri != "" && !seen[uri] {
						seen[uri] = true
						u.Sources = append(u.Sources, uri)
					}
				}
			}
		}
		if err == io.EOF {
			return u, nil
		}
		if err != nil {
			return u, fmt.Errorf("reading the usage log: %w", err)
		}
	}
}

// SumUsage adds the characters of every turn's lines in the usage log at
// path, read from byte offset from, to sums (keyed by turn id). It returns
// the offset after the last complete line, so a caller can keep its sums and
// read only what was appended since, by any process: a torn last line is
// left for the next call. A missing file adds nothing.
func SumUsage(path string, from int64, sums map[string]int) (next int64, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return from, nil
	}
	if err != nil {
		return from, fmt.Errorf("opening the usage log: %w", errors.Unwrap(err))
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return from, fmt.Errorf("reading the usage log: %w", errors.Unwrap(err))
	}
	next = from
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return next, nil
		}
		if err != nil {
			return next, fmt.Errorf("reading the usage log: %w", err)
		}
		next += int64(len(line))
		var l struct {
			TurnID string `json:"turnId"`
			Chars  int    `json:"chars"`
		}
		if json.Unmarshal(line, &l) == nil && l.Chars > 0 {
			sums[l.TurnID] += l.Chars
		}
	}
}

// replaceRoot hides an absolute root inside a message.
func replaceRoot(msg, root string) string {
	return strings.ReplaceAll(msg, root, "{vault}")
}
