package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/researchctx/researchctx/cite"
	"github.com/researchctx/researchctx/sources"
)

func (r *reader) region(ctx context.Context, id string, out *ReadOutput) error {
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("%w: region mode needs region (a layout id such as figure-1)", ErrInvalidArgument)
	}
	rr, ok := r.tg.src.(sources.RegionReader)
	if !ok {
		return fmt.Errorf("%w: %s has no layout regions", ErrInvalidArgument, quoteArg(r.path()))
	}
	asked := cite.Region(r.path(), id)
	if r.tg.frag.Item != "" && r.tg.frag.Item == id {
		asked = cite.Item(r.path(), id)
	}
	reg, err := rr.Region(ctx, id)
	if err != nil {
		return r.mapErr(err, asked)
	}
	out.Region, out.Page, out.Section = reg.ID, reg.Page, reg.Title
	out.Title = reg.Title
	text := reg.Text
	if text == "" {
		text = reg.Title
	}
	out.CitationURI = cite.Region(reg.Path, reg.ID)
	if r.tg.frag.Item != "" && r.tg.frag.Item == id {
		// Asked for as #figure=N: cited alike.
		out.CitationURI = cite.Item(reg.Path, id)
	}
	r.cut(text, out)
	return nil
}
