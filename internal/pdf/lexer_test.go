package pdf

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/researchctx/researchctx/internal/pdf/font"
	"github.com/researchctx/researchctx/internal/pdf/object"
	"github.com/researchctx/researchctx/internal/testkit/hostilepdf"
)

func seedPDFs(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.pdf"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// One small document per hostile class, so that the fuzzer starts
	// next to every limit.
	for _, data := range [][]byte{
		hostilepdf.DeepContent("[", 100), hostilepdf.DeepContent("<<", 100), hostilepdf.DeepObject("[", 120),
		hostilepdf.OperandFlood(5000), hostilepdf.TextBomb(2, 1<<10), hostilepdf.SelfForm(), hostilepdf.FormFanOut(3, 4),
		hostilepdf.XRefStreamFlood(5000), hostilepdf.ObjectStreamFlood(5000), hostilepdf.DuplicateObjectFlood(50, 1000),
		hostilepdf.ClassicXRefHugeSize(5000), hostilepdf.AnnotFlood(2, 10, 100),
	} {
		f.Add(data)
	}
}

// FuzzLexer checks that the content-stream lexer, CMap parser and
// interpreter end on any input without panicking.
func FuzzLexer(f *testing.F) {
	for _, s := range []string{
		"BT /F1 12 Tf 72 700 Td (Hello) Tj ET",
		"[(a) -120 <4142> (b\\051)] TJ q 1 0 0 1 0 0 cm Q",
		"BI /W 2 /H 2 ID \x00\x01EI Q << /A [1 2 <<>>] >> BDC",
		"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfrange <00> <FF> [<0041>] endbfrange",
		"(unterminated \\",
		"[(a) 120 (b) Tf (c) [(d)] << /A 1 >> /N true null] TJ",
		"[(a) -250 (b) TJ ET BT [(c) Tj ET (d) -250 (e)] TJ (f) ] Tj",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lx := object.NewLexer(data)
		for i := 0; ; i++ {
			if i > 4*len(data)+8 {
				t.Fatal("lexer did not terminate")
			}
			tok := lx.Next()
			if tok.Kind == object.TokEOF {
				break
			}
			if tok.Kind == object.TokOp && string(tok.Val) == "ID" {
				lx.SkipInlineImage()
			}
		}
		d := &doc{ctx: context.Background(), budget: 1 << 20, glyphBudget: MaxDocumentGlyphs, fonts: map[int]*font.Font{}, forms: map[int]*formXObject{}}
		in := newInterp(d, identity)
		// A Type 0 font whose ToUnicode CMap is the input.
		tu := types.StreamDict{Dict: types.NewDict(), Raw: data}
		in.gs.font = font.Load(fontObjects{d}, types.Dict{"Subtype": types.Name("Type0"), "ToUnicode": tu})
		in.gs.size = 10
		_ = in.run(data, nil, 0)
		layoutPage(in.glyphs, 612, 792)
	})
}

// FuzzExtract checks that whole-file extraction returns a document or one
// of the typed errors, within its time bound, for any input.
func FuzzExtract(f *testing.F) {
	seedPDFs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), &Options{Timeout: 5 * time.Second, MaxBytes: 4 << 20})
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEncrypted) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrTimeout) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		for _, p := range d.Pages {
			if p.Text == "" && !p.NoTextLayer && p.Err == nil {
				t.Fatalf("page %d silently empty", p.Number)
			}
		}
		d.Headings()
	})
}
