package researchctx

import (
	"errors"
	"io/fs"

	"github.com/researchctx/researchctx/internal/safefs"
)

// Dropped is a path from the Request that could not be authorised, or a
// selection's page that the paper does not have.
type Dropped struct {
	Path   string     `json:"path"`
	Reason DropReason `json:"reason"`
}

// DropReason says why a path of a Request was dropped. Its text is what
// hosts show and log; compare with the constants below rather than the text.
type DropReason string

// The reasons a path is dropped.
const (
	DropEmpty      DropReason = "empty path"
	DropAbsolute   DropReason = "absolute path: outside the vault"
	DropRoot       DropReason = "the vault root is not grantable: mention a folder, paper or file in it"
	DropPrivate    DropReason = "private: .agentero/ is never a source"
	DropLink       DropReason = "symbolic link: sources are read only from real folders and files"
	DropName       DropReason = "name with a control or direction character"
	DropOutside    DropReason = "outside the vault"
	DropInvalid    DropReason = "invalid path"
	DropHidden     DropReason = "hidden entry"
	DropNotFound   DropReason = "not found"
	DropNotRegular DropReason = "not a regular file or folder"
	DropPermission DropReason = "permission denied"
	DropUnreadable DropReason = "cannot be read"
	// DropNotPaper: the current paper is not a paper unit. A folder under
	// papers/ is one when it holds metadata.json, NOTES.md or PAPER.md, or
	// a PDF named after the folder; the reason says so, for a host that
	// shows it.
	DropNotPaper DropReason = "not a paper: a folder under papers/ is one when it holds metadata.json, NOTES.md, PAPER.md or a PDF named after the folder"
	// DropKindTaken: a connector names a path the turn already grants as
	// another kind of source.
	DropKindTaken DropReason = "granted already as another kind of source"
	// DropPage: a selection's page is negative or beyond the document's
	// page count. The quote stays in the evidence, placed by its text.
	DropPage DropReason = "no such page in the document"
	// DropQuote: a selection's text is not in its document where the
	// selection says (on its page), or not in it at all. Found elsewhere
	// in the document, the evidence is placed and cited there; found
	// nowhere, it keeps the user's words with no page and no citation.
	DropQuote DropReason = "the selected text is not there in the document"
	// DropUnknownKind: a "kind:name" mention or selection path whose kind
	// no connector linked into the program knows (and which is no vault
	// path either).
	DropUnknownKind DropReason = "unknown source kind: no connector for it is linked into this program"
)

// reason turns an access error into a short, path-free reason.
func reason(err error) DropReason {
	switch {
	case errors.Is(err, safefs.ErrPrivate):
		return DropPrivate
	case errors.Is(err, safefs.ErrLink):
		return DropLink
	case errors.Is(err, safefs.ErrName):
		return DropName
	case errors.Is(err, safefs.ErrOutside):
		return DropOutside
	case errors.Is(err, fs.ErrInvalid):
		return DropInvalid
	case errors.Is(err, safefs.ErrHidden):
		return DropHidden
	case errors.Is(err, fs.ErrNotExist):
		return DropNotFound
	case errors.Is(err, safefs.ErrNotRegular):
		return DropNotRegular
	case errors.Is(err, fs.ErrPermission):
		return DropPermission
	}
	return DropUnreadable
}
