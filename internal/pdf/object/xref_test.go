package object

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/corpus"
)

// TestAuditXRefCorpus checks that the audit passes every real PDF of the
// corpus: the limits are far from what real files list.
func TestAuditXRefCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpus.Dir(t, "pdfs"), "*.pdf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus PDFs (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := AuditXRef(context.Background(), bytes.NewReader(data), int64(len(data))); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}

// TestRebuiltTableIsSparse checks that the rebuilt table of a file whose
// objects are numbered far apart lists the objects found, not every
// number up to the highest.
func TestRebuiltTableIsSparse(t *testing.T) {
	data := []byte("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3000 0 R] /Count 1 >> endobj\n" +
		"3000 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	update := RebuildXRef(data)
	if update == nil {
		t.Fatal("no rebuilt table")
	}
	if len(update) > 400 {
		t.Errorf("rebuilt table of 3 objects takes %d bytes", len(update))
	}
	fixed := slices.Concat(data, update)
	if err := AuditXRef(context.Background(), bytes.NewReader(fixed), int64(len(fixed))); err != nil {
		t.Errorf("audit of the rebuilt file: %v", err)
	}
}

// TestAuditHeadersAcrossChunks checks that the header count reads a
// header once wherever it falls against the chunks the file is read in:
// just before a boundary, across it, just after it, and at the end.
func TestAuditHeadersAcrossChunks(t *testing.T) {
	const chunk = 1 << 20
	data := bytes.Repeat([]byte(" "), 5*chunk)
	// Where each header's keyword starts: ending at a boundary, across
	// one (two ways), starting at one, and near the end.
	at := []int{4, chunk - 3, 2*chunk - 2, 3*chunk - 1, 4 * chunk, 5*chunk - 5}
	for i, p := range at {
		h := fmt.Sprintf("%d 0 obj", i+1)
		copy(data[p-(len(h)-3):], h)
	}
	data = append(data, "\n9 0 objstm 10 0 endobj"...) // neither is a header
	for _, tt := range []struct {
		max     int
		wantErr bool
	}{{len(at), false}, {len(at) - 1, true}} {
		a := &XRefAudit{ctx: context.Background(), r: bytes.NewReader(data), size: int64(len(data)), max: tt.max}
		if err := a.headers(); (err != nil) != tt.wantErr {
			t.Errorf("max %d: headers() = %v, want error %v", tt.max, err, tt.wantErr)
		}
	}
}
