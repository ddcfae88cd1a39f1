package relations

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/researchctx/researchctx/internal/safefs"
)

// readScan reads and parses the cited-by cache. A missing cache is not an
// error. The cache lives in the private folder, which the safe view refuses,
// so it is read through the safe file layer for the SDK's own files: no
// symbolic link from .agentero down, non-blocking, a regular file only,
// size-capped. Errors name only the
// cache's vault-relative path.
func (l *Graph) readScan() (seeds map[string][]citing, skipped map[string]int, st stamp, err error) {
	st = l.stat(ScanFile)
	if !st.exists {
		return nil, nil, st, nil
	}
	dir, err := safefs.OpenDir(filepath.Join(l.v.Root(), filepath.FromSlash(path.Dir(ScanFile))), 0)
	if err != nil {
		return nil, nil, st, scanError(err)
	}
	defer dir.Close()
	data, err := dir.ReadFile(path.Base(ScanFile), maxScan)
	if errors.Is(err, safefs.ErrTooLarge) {
		err = fmt.Errorf("%w: larger than %d MiB", ErrMalformed, maxScan>>20)
	}
	if err != nil {
		return nil, nil, st, scanError(err)
	}
	seeds, skipped, err = parseScan(data)
	if err != nil {
		return nil, nil, st, scanError(err)
	}
	return seeds, skipped, st, nil
}

// scanError names the cache by its vault-relative path and drops any path
// the os layer put in err, which may be absolute.
func scanError(err error) error {
	for {
		var pe *fs.PathError
		var le *os.LinkError
		if errors.As(err, &pe) {
			err = pe.Err
		} else if errors.As(err, &le) {
			err = le.Err
		} else {
			break
		}
	}
	return fmt.Errorf("%s: %w", ScanFile, err)
}
