package usage

import (
	"fmt"

	"github.com/researchctx/researchctx/internal/safefs"
)

// How the usage log is opened: through the safe file layer, with size caps.
// The log's format and its append protocol are in usage.go and ledger.go.

// maxUsageRead bounds what one read of the usage log takes in: a log is a
// few hundred bytes per tool call, so 64 MiB is hundreds of thousands of
// calls of one conversation. A larger unread part is refused, not read.
const maxUsageRead = 64 << 20

// openUsage opens the usage log at path through the safe file layer: no
// symbolic link from .agentero down, a regular file only, opened without
// blocking. Every open of a usage log goes through here. A missing log
// opened for reading is an error wrapping fs.ErrNotExist.
func openUsage(path string, flag int) (*safefs.File, error) {
	f, err := safefs.OpenFile(path, flag)
	if err != nil {
		return nil, fmt.Errorf("opening the usage log: %w", err)
	}
	return f, nil
}

// checkUsageRead refuses to read more than maxUsageRead bytes of f past
// byte offset from.
func checkUsageRead(f *safefs.File, from int64) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading the usage log: %w", err)
	}
	if fi.Size()-from > maxUsageRead {
		return fmt.Errorf("reading the usage log: %w: more than %d MiB to read", safefs.ErrTooLarge, maxUsageRead>>20)
	}
	return nil
}
