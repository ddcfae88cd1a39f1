// Package lenient reads single JSON values written by other tools (metadata
// files, reference sidecars, caches) without failing on a field of the wrong
// type: a value that cannot be read is absent, never an error.
package lenient

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// String reads a JSON string or number as a trimmed string; anything else
// is "".
func String(r json.RawMessage) string {
	r = bytes.TrimSpace(r)
	if len(r) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(r, &n) == nil {
		return n.String()
	}
	return ""
}

// Text reads a JSON string, trimmed; anything else is "". Identifiers and
// titles are read with Text, never from numbers, which lose digits in JSON.
func Text(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// Int reads a non-negative integer from a JSON number or from the leading
// digits of a string (a year in "2024-03-11"); anything else is 0.
func Int(r json.RawMessage) int { return LeadingInt(String(r)) }

// LeadingInt reads the leading digits of s (at most nine); 0 when none.
func LeadingInt(s string) int {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && end < 9 && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}

// Names reads a list of names: a single string, or a list of strings and of
// objects with a "name" (or "given" and "family").
func Names(r json.RawMessage) []string {
	if s := Text(r); s != "" {
		return []string{s}
	}
	var items []json.RawMessage
	if json.Unmarshal(r, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		s := Text(it)
		if s == "" {
			var o map[string]json.RawMessage
			if json.Unmarshal(it, &o) == nil {
				s = Text(o["name"])
				if s == "" {
					s = strings.TrimSpace(Text(o["given"]) + " " + Text(o["family"]))
				}
			}
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
