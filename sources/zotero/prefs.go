package zotero

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrProfile: the Zotero profile the host configured has no readable
// prefs.js, or one that is not in the form Zotero writes.
var ErrProfile = errors.New("the Zotero profile's prefs.js cannot be read")

// basePathPref is the preference that holds the base directory of linked
// files.
const basePathPref = "extensions.zotero.baseAttachmentPath"

// maxPrefs bounds the prefs.js read: Zotero's is tens of kilobytes.
const maxPrefs = 4 << 20

// baseFromProfile returns the base directory of linked files that the
// prefs.js of Zotero's profile folder dir records, or "" when it records
// none. Only lines user_pref("<name>", <value>); are read, each strictly:
// a line that starts so but is not of that form, a prefs.js over maxPrefs,
// or a base directory that is not an absolute path is an error wrapping
// ErrProfile, which names no path.
func baseFromProfile(dir string) (string, error) {
	f, err := os.Open(filepath.Join(dir, "prefs.js"))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrProfile, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPrefs+1))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrProfile, errors.Unwrap(err))
	}
	if len(data) > maxPrefs {
		return "", fmt.Errorf("%w: it is over %d MiB", ErrProfile, maxPrefs>>20)
	}
	prefs, err := parsePrefs(string(data))
	if err != nil {
		return "", err
	}
	v, ok := prefs[basePathPref]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	switch {
	case !ok:
		return "", fmt.Errorf("%w: %s is not a string", ErrProfile, basePathPref)
	case s == "":
		return "", nil
	case strings.ContainsRune(s, 0) || !filepath.IsAbs(s):
		return "", fmt.Errorf("%w: %s is not an absolute path", ErrProfile, basePathPref)
	}
	return filepath.Clean(s), nil
}

// parsePrefs reads the user_pref lines of a prefs.js: a string, boolean or
// integer value per name. Comment lines and blank lines are passed over;
// any other line is an error, so that a file Zotero did not write is not
// half-read.
func parsePrefs(text string) (map[string]any, error) {
	out := map[string]any{}
	inComment := false
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		bad := func(why string) error {
			return fmt.Errorf("%w: line %d: %s", ErrProfile, i+1, why)
		}
		switch {
		case inComment:
			inComment = !strings.Contains(line, "*/")
			continue
		case line == "", strings.HasPrefix(line, "//"), strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "/*"):
			inComment = !strings.Contains(line[2:], "*/")
			continue
		}
		args, ok := strings.CutPrefix(line, "user_pref(")
		if !ok {
			return nil, bad("not a user_pref line")
		}
		args, ok = strings.CutSuffix(args, ");")
		if !ok {
			return nil, bad("a user_pref line that does not end with );")
		}
		// The name, then the value: a JSON string, true, false or an
		// integer, as Zotero writes them.
		dec := json.NewDecoder(strings.NewReader("[" + args + "]"))
		dec.UseNumber()
		var pair []any
		if err := dec.Decode(&pair); err != nil || dec.More() {
			return nil, bad("a user_pref line that is not a name and a value")
		}
		if len(pair) != 2 {
			return nil, bad("a user_pref line that is not a name and a value")
		}
		name, ok := pair[0].(string)
		if !ok || name == "" {
			return nil, bad("a preference name that is not a string")
		}
		switch v := pair[1].(type) {
		case string, bool:
		case json.Number:
			if _, err := v.Int64(); err != nil {
				return nil, bad("a preference value that is not an integer")
			}
		default:
			return nil, bad("a preference value that is not a string, boolean or integer")
		}
		out[name] = pair[1]
	}
	if inComment {
		return nil, fmt.Errorf("%w: a comment that does not end", ErrProfile)
	}
	return out, nil
}
