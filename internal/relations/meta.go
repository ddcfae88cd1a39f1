package relations

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/researchctx/researchctx/internal/catalog"
)

// PaperMeta is what a paper's own PDF shows of it: the title of its title
// block (else its Info dictionary's or XMP's), its authors and its year.
// It stands in for the fields a paper's metadata.json lacks when works
// citing the paper are matched to it by title.
type PaperMeta struct {
	Title   string   `json:"t,omitempty"`
	Authors []string `json:"a,omitempty"`
	Year    int      `json:"y,omitempty"`
}

// needsMeta reports whether p's metadata lacks a title, its authors or
// its year, so that its PDF's own are worth reading.
func needsMeta(p *catalog.Paper) bool {
	return p.Title() == "" || len(p.Meta.Authors) == 0 || p.Meta.Year == 0
}

// ownMeta calls the Meta hook for one paper, within PaperTimeout; a panic
// in the hook is that paper's error.
func (l *Graph) ownMeta(ctx context.Context, p *catalog.Paper) (m PaperMeta, err error) {
	ctx, cancel := context.WithTimeout(ctx, l.opts.PaperTimeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			m, err = PaperMeta{}, fmt.Errorf("internal failure reading the metadata: %v", r)
		}
	}()
	m, err = l.opts.Meta(ctx, p)
	if len(m.Authors) > maxOwnAuthors {
		m.Authors = m.Authors[:maxOwnAuthors]
	}
	return m, err
}

// maxOwnAuthors bounds the authors kept of a PDF's own metadata: matching
// needs the first.
const maxOwnAuthors = 20

// arXivYear is the year an arXiv id encodes: "1706.03762" was submitted in
// 2017, "hep-th/9901001" in 1999; 0 when id is neither form.
func arXivYear(id string) int {
	id = strings.TrimSpace(id)
	if i := strings.IndexByte(id, '/'); i >= 0 {
		id = id[i+1:] // old style: archive/YYMMNNN
		if len(id) < 4 {
			return 0
		}
		yy, err := strconv.Atoi(id[:2])
		mm, err2 := strconv.Atoi(id[2:4])
		if err != nil || err2 != nil || mm < 1 || mm > 12 {
			return 0
		}
		if yy >= 91 {
			return 1900 + yy
		}
		return 2000 + yy
	}
	if len(id) < 9 || id[4] != '.' {
		return 0
	}
	yy, err := strconv.Atoi(id[:2])
	mm, err2 := strconv.Atoi(id[2:4])
	if err != nil || err2 != nil || mm < 1 || mm > 12 || yy < 7 {
		return 0 // the new scheme began in April 2007
	}
	return 2000 + yy
}

// ownYear is the year of library paper p when its metadata has none: its
// PDF's, else the one its arXiv id (its metadata's or its PDF's) encodes.
func (g *graph) ownYear(p *catalog.Paper) int {
	if y := g.meta[p.Ref].Year; y > 0 {
		return y
	}
	if p.ArXiv != "" {
		return arXivYear(p.ArXiv)
	}
	return arXivYear(g.ownIDs[p.Ref][1])
}
