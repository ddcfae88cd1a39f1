package pdf

import (
	"bytes"
	"flag"
	"os"
	"sync"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

var update = flag.Bool("update", false, "rewrite testdata fixtures")

// encryptedFixture encrypts simple.pdf with a user password, so that it
// does not open with the empty password.
func encryptedFixture(t testing.TB) []byte {
	t.Helper()
	newConfig(Options{}, 0) // keeps pdfcpu off the user's configuration folder
	conf := model.NewAESConfiguration("user-secret", "owner-secret", 256)
	var out bytes.Buffer
	if err := api.Encrypt(bytes.NewReader(fixtures()["simple.pdf"]), &out, conf); err != nil {
		t.Fatalf("encrypting the fixture: %v", err)
	}
	return out.Bytes()
}

// corpusDoc is a corpus file as Extract reads it.
type corpusDoc struct {
	doc    *Document
	err    error
	served bool // by the lazy reader
}

// corpusReaders is the number of tests that read every corpus file
// through Extract: TestLazyMatchesPdfcpu and TestCorpusQuality.
const corpusReaders = 2

// corpusDocs holds the corpus files as Extract read them, by path, until
// each of the corpusReaders tests has read them: seconds of CPU, spent
// once. (About 10 MB in all: dropped after the last reader, so that later
// tests that measure the heap do not count them.)
var corpusDocs struct {
	sync.Mutex
	m     map[string]corpusDoc
	users int
}

// extractCorpus returns Extract's reading of each corpus file at paths
// (read-only, shared), extracting those not read yet.
func extractCorpus(t *testing.T, paths []string) map[string]corpusDoc {
	t.Helper()
	corpusDocs.Lock()
	defer corpusDocs.Unlock()
	if corpusDocs.m == nil {
		corpusDocs.m = map[string]corpusDoc{}
	}
	corpusDocs.users++
	if corpusDocs.users == corpusReaders {
		t.Cleanup(func() {
			corpusDocs.Lock()
			corpusDocs.m = nil
			corpusDocs.Unlock()
		})
	}
	m := corpusDocs.m
	for _, p := range paths {
		if _, ok := m[p]; ok {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c corpusDoc
		c.doc, c.served, c.err = extractServed(t, data)
		m[p] = c
	}
	return m
}
