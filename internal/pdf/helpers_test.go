package pdf

import (
	"bytes"
	"flag"
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
