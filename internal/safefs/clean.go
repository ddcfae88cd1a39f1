package safefs

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/researchctx/researchctx/internal/agentero"
)

// PrivateDir is the name of the SDK's private folder at the Vault root. It is
// never listed, walked, opened or stat'ed through this package.
const PrivateDir = agentero.Dir

// maxPathLen bounds the work one path can cause; no real Vault path is near it.
const maxPathLen = 4096

// Clean validates a vault-relative path and returns its canonical form.
//
// A valid path is '/'-separated, relative and UTF-8, contains no NUL byte, no
// backslash and no ".." element, and names no hidden entry (one whose name
// starts with '.', which includes the private .agentero folder). "." names
// the view itself. Empty elements, "." elements and a trailing slash are
// dropped: Clean("papers//x/./") is "papers/x".
//
// Clean compares and returns bytes as given. It applies no Unicode
// normalisation and no percent-decoding: '%' is an ordinary character, and a
// name stored on disk in NFD (as macOS tools often write it) is reached by
// exactly its own bytes. Normalising would be unsafe as well as lossy: NFKC
// maps U+2025 to ".." and U+FF0F to "/", so a normalised comparison could
// turn a harmless name into a traversal. On a file system that is itself
// normalisation-insensitive (APFS), the NFC and NFD spellings reach the same
// file; they never reach a different one, because every element is still
// resolved by the kernel under the view's root.
func Clean(rel string) (string, error) {
	c, err := clean(rel)
	if err != nil {
		return "", &fs.PathError{Op: "clean", Path: echo(rel), Err: err}
	}
	return c, nil
}

// clean is Clean returning the bare cause.
func clean(rel string) (string, error) {
	switch {
	case rel == "":
		return "", reason(fs.ErrInvalid, "empty path")
	case len(rel) > maxPathLen:
		return "", reason(fs.ErrInvalid, "path too long")
	case strings.IndexByte(rel, 0) >= 0:
		return "", reason(fs.ErrInvalid, "NUL in path")
	case !utf8.ValidString(rel):
		// Names travel in JSON, which cannot carry invalid UTF-8; fs.FS
		// refuses it too.
		return "", reason(fs.ErrInvalid, "path is not UTF-8")
	case strings.IndexByte(rel, '\\') >= 0:
		return "", reason(fs.ErrInvalid, "backslash in path")
	case rel[0] == '/' || isDrive(rel):
		return "", reason(ErrOutside, "absolute path")
	}
	for elem := range strings.SplitSeq(rel, "/") {
		if elem == ".." {
			return "", reason(ErrOutside, "'..' in path")
		}
		if err := checkName(elem); err != nil {
			return "", err
		}
	}
	c := path.Clean(rel)
	// Belt and braces for other platforms (reserved names on Windows).
	if !filepath.IsLocal(filepath.FromSlash(c)) {
		return "", reason(fs.ErrInvalid, "not a local path")
	}
	return c, nil
}

// checkName refuses hidden and private names. "" and "." are not names and
// pass (Clean drops them).
func checkName(name string) error {
	if name == "" || name == "." || name[0] != '.' {
		return nil
	}
	// Case-insensitive: on macOS and Windows ".AGENTERO" is the same folder.
	if strings.EqualFold(name, PrivateDir) {
		return ErrPrivate
	}
	return ErrHidden
}

// visible reports whether a directory entry name may be shown: not hidden,
// and openable (Clean refuses names that are not UTF-8).
func visible(name string) bool { return name != "" && name[0] != '.' && utf8.ValidString(name) }
