package grant

// Valid reports whether k is a plain kind name, as a grant's sources must
// have: 1–64 characters from [a-z0-9._-], starting with a letter. A
// connector registers its kind under such a name.
func (k Kind) Valid() bool { return validKind(k) }
