package relations

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// readScan reads and parses the cited-by cache. A missing cache is not an
// error. The cache lives in the private folder, which the safe view refuses,
// so it is opened here through its own os.Root with the same precautions:
// non-blocking, a regular file only, size-capped. Errors name only the
// cache's vault-relative path.
func (l *Library) readScan() (seeds map[string][]citing, skipped map[string]int, st stamp, err error) {
	st = l.stat(ScanFile)
	if !st.exists {
		return nil, nil, st, nil
	}
	root, err := os.OpenRoot(l.v.Root())
	if err != nil {
		return nil, nil, st, scanError(err)
	}
	defer root.Close()
	f, err := root.OpenFile(ScanFile, openFlags, 0)
	if err != nil {
		return nil, nil, st, scanError(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, st, scanError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, st, scanError(errors.New("not a regular file"))
	}
	if fi.Size() > maxScan {
		return nil, nil, st, scanError(fmt.Errorf("%w: larger than %d MiB", ErrMalformed, maxScan>>20))
	}
	// Read one byte past the cap so that a file that grew is refused.
	data, err := io.ReadAll(io.LimitReader(f, maxScan+1))
	if err != nil {
		return nil, nil, st, scanError(err)
	}
	if len(data) > maxScan {
		return nil, nil, st, scanError(fmt.Errorf("%w: larger than %d MiB", ErrMalformed, maxScan>>20))
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
