package researchctx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/researchctx/researchctx/internal/safefs"
)

// How the usage log is opened and read: through the safe file layer, with
// size caps. The log's format and its append protocol are in usage.go.

// maxUsageRead bounds what one read of the usage log takes in: a log is a
// few hundred bytes per tool call, so 64 MiB is hundreds of thousands of
// calls of one conversation. A larger unread part is refused, not read.
const maxUsageRead = 64 << 20

// openUsage opens the usage log at path through the safe file layer: no
// symbolic link from .agentero down, a regular file only, opened without
// blocking. For reading, a missing log is (nil, nil).
func openUsage(path string, appending bool) (*safefs.File, error) {
	if appending {
		f, err := safefs.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
		if err != nil {
			return nil, fmt.Errorf("opening the usage log: %w", err)
		}
		return f, nil
	}
	f, err := safefs.OpenFile(path, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening the usage log: %w", err)
	}
	return f, nil
}

// usageLines returns a reader of the log's lines from byte offset from, in
// memory bounded by maxUsageLine, refusing more than maxUsageRead bytes
// past from.
func usageLines(f *safefs.File, from int64) (*safefs.LineReader, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading the usage log: %w", err)
	}
	if fi.Size()-from > maxUsageRead {
		return nil, fmt.Errorf("reading the usage log: %w: more than %d MiB to read", safefs.ErrTooLarge, maxUsageRead>>20)
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading the usage log: %w", err)
	}
	return safefs.NewLineReader(io.LimitReader(f, maxUsageRead), maxUsageLine), nil
}
