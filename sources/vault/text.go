package vault

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/researchctx/researchctx/internal/safefs"
	"github.com/researchctx/researchctx/sources"
)

// TextMax caps a text file of a directory or a plain file source, in bytes:
// a larger file is not read (sources.ErrTooLarge) and a search leaves it out and
// reports sources.Results.Truncated. A paper's PAPER.md and NOTES.md have their
// own, larger cap (4 MiB).
const TextMax = 2 << 20

// The file layer reads text files up to its default cap: TextMax must be it.
var _ = [1]struct{}{}[TextMax-safefs.DefaultMax]

// outsideErr is the sources.ErrOutside error of a path asked of the source ref. A
// path that is not a clean vault-relative one (an absolute path of the
// machine, say) is not echoed.
func outsideErr(p, ref string) error {
	rel, err := safefs.Clean(p)
	if err != nil {
		return fmt.Errorf("%s: path is %w", ref, sources.ErrOutside)
	}
	return fmt.Errorf("%s: %w %s", rel, sources.ErrOutside, ref)
}

// fsErr maps an error of the safe file view to the sources sentinels,
// keeping its vault-relative message.
func fsErr(err error) error {
	sentinel := fsSentinel(err)
	if sentinel == nil {
		return err
	}
	return fmt.Errorf("%w: %v", sentinel, err)
}

// fsSentinel returns the sources sentinel for an access error: sources.ErrNotText,
// sources.ErrOutside or sources.ErrNotFound; nil for any other error.
func fsSentinel(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, safefs.ErrNotText):
		return sources.ErrNotText
	case errors.Is(err, safefs.ErrOutside), errors.Is(err, safefs.ErrLink):
		// Documents are never read through a symbolic link, not even
		// one that stays inside the source.
		return sources.ErrOutside
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, safefs.ErrHidden), errors.Is(err, safefs.ErrPrivate),
		errors.Is(err, safefs.ErrNotRegular), errors.Is(err, fs.ErrInvalid), errors.Is(err, safefs.ErrName):
		return sources.ErrNotFound
	}
	return nil
}

// binaryExt names extensions that are never text, so a directory search
// does not read them to find out.
var binaryExt = map[string]bool{
	".pdf": true, ".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true,
	".tif": true, ".tiff": true, ".ico": true, ".zip": true, ".gz": true, ".tgz": true, ".bz2": true,
	".xz": true, ".7z": true, ".rar": true, ".tar": true, ".mp3": true, ".mp4": true, ".mov": true,
	".wav": true, ".flac": true, ".ogg": true, ".avi": true, ".mkv": true, ".woff": true, ".woff2": true,
	".ttf": true, ".otf": true, ".exe": true, ".dll": true, ".so": true, ".dylib": true, ".o": true,
	".a": true, ".class": true, ".jar": true, ".pyc": true, ".sqlite": true, ".db": true, ".bin": true,
	".docx": true, ".xlsx": true, ".pptx": true, ".odt": true, ".epub": true, ".djvu": true,
}
