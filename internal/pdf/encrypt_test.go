package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// The trailer entries withUpdate repeats, found as the object reader's
// repairs find them: the last match in the file wins.
var (
	sizeKey   = regexp.MustCompile(`/Size\s+(\d+)`)
	startXRef = regexp.MustCompile(`startxref\s+(\d+)`)
	trailerID = regexp.MustCompile(`/ID\s*\[\s*<[0-9A-Fa-f\s]*>\s*<[0-9A-Fa-f\s]*>\s*\]`)
)

// lastMatch returns the submatches of re's last match in data, or nil.
func lastMatch(re *regexp.Regexp, data []byte) [][]byte {
	all := re.FindAllSubmatch(data, -1)
	if len(all) == 0 {
		return nil
	}
	return all[len(all)-1]
}

// lastRef returns the last "/key N G R" of data as "N G R", or "".
func lastRef(data []byte, key string) string {
	m := lastMatch(regexp.MustCompile(`/`+key+`\s+(\d+)\s+(\d+)\s+R\b`), data)
	if m == nil {
		return ""
	}
	return string(m[1]) + " " + string(m[2]) + " R"
}

// withUpdate appends an incremental update to data that defines objs
// (object number → body) and whose trailer repeats the last /Root, /Info,
// /Encrypt and /ID of data, with extra added to it (or, when encrypt is
// not "", /Encrypt set to it: "-" for none).
func withUpdate(data []byte, objs map[int]string, encrypt string) []byte {
	var out bytes.Buffer
	out.Write(data)
	out.WriteString("\n")
	nrs := make([]int, 0, len(objs))
	for nr := range objs {
		nrs = append(nrs, nr)
	}
	slices.Sort(nrs)
	offs := map[int]int{}
	size := 0
	if m := lastMatch(sizeKey, data); m != nil {
		size, _ = strconv.Atoi(string(m[1]))
	}
	for _, nr := range nrs {
		offs[nr] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", nr, objs[nr])
		size = max(size, nr+1)
	}
	xref := out.Len()
	out.WriteString("xref\n")
	for _, nr := range nrs {
		fmt.Fprintf(&out, "%d 1\n%010d 00000 n \n", nr, offs[nr])
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d", size)
	for _, key := range []string{"Root", "Info", "Encrypt"} {
		r := lastRef(data, key)
		if key == "Encrypt" && encrypt != "" {
			r = encrypt
		}
		if r != "" && r != "-" {
			fmt.Fprintf(&out, " /%s %s", key, r)
		}
	}
	if id := lastMatch(trailerID, data); id != nil {
		out.WriteString(" ")
		out.Write(id[0])
	}
	if m := lastMatch(startXRef, data); m != nil {
		fmt.Fprintf(&out, " /Prev %s", m[1])
	}
	fmt.Fprintf(&out, " >>\nstartxref\n%d\n%%%%EOF\n", xref)
	return out.Bytes()
}

// pdfcpuEncrypted encrypts simple.pdf with pdfcpu, an empty user password
// and the given cipher.
func pdfcpuEncrypted(t testing.TB, conf *model.Configuration) []byte {
	t.Helper()
	newConfig(Options{}, 0)
	var out bytes.Buffer
	if err := api.Encrypt(bytes.NewReader(fixtures()["simple.pdf"]), &out, conf); err != nil {
		t.Fatalf("encrypting the fixture: %v", err)
	}
	return out.Bytes()
}

// pageTexts returns the text of every page of d.
func pageTexts(d *Document) []string {
	out := make([]string, len(d.Pages))
	for i, p := range d.Pages {
		out[i] = p.Text
	}
	return out
}

// TestOpensAsViewersDo: one fixture per class of file that pdftotext
// opens and pdfcpu alone refuses, each giving the text of the plain file
// it was made from; files with a user password stay refused as
// encrypted.
func TestOpensAsViewersDo(t *testing.T) {
	simple := fixtures()["simple.pdf"]
	want := pageTexts(mustExtract(t, simple))
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", "encrypted", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	aes128 := pdfcpuEncrypted(t, model.NewAESConfiguration("", "owner", 128))
	aes256 := pdfcpuEncrypted(t, model.NewAESConfiguration("", "owner", 256))
	// Page 1 (as pdfcpu numbers it, as simple.pdf does) drawn from its own stream and a second one, 40 0 R.
	page1 := "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 1 0 R >> >> /Contents [3 0 R 40 0 R] >>"
	shortStream := func(data []byte, raw string) []byte {
		return withUpdate(data, map[int]string{4: page1, 40: fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(raw), raw)}, "")
	}
	// An incomplete subsection: its header claims three more entries
	// than follow.
	incomplete := func(data []byte) []byte {
		re := regexp.MustCompile(`(?m)^xref\r?\n0 (\d+)`)
		return re.ReplaceAllFunc(data, func(b []byte) []byte {
			m := re.FindSubmatch(b)
			n, _ := strconv.Atoi(string(m[1]))
			return []byte(fmt.Sprintf("xref\n0 %d", n+3))
		})
	}
	wrongOffsets := func(data []byte) []byte {
		return regexp.MustCompile(`(?m)^(\d{10}) 00000 n`).ReplaceAll(data, []byte("0000000017 00000 n"))
	}
	qpdf := []string{"r2-rc4-40.pdf", "r3-rc4-128.pdf", "r4-rc4-128.pdf", "r4-aes-128.pdf", "r5-aes-256.pdf", "r6-aes-256.pdf", "r6-aes-256-objstm.pdf"}
	tests := []struct {
		name string
		data []byte
	}{
		{"/Encrypt names a missing object", withUpdate(simple, nil, "99 0 R")},
		{"/Encrypt names null", withUpdate(simple, map[int]string{13: "null"}, "13 0 R")},
		{"/Encrypt names a number", withUpdate(simple, map[int]string{13: "42"}, "13 0 R")},
		{"/Encrypt names a standard dictionary without /O and /U", withUpdate(simple, map[int]string{13: "<< /Filter /Standard /V 1 /R 2 /P -4 >>"}, "13 0 R")},
		{"AES-128 stream of 5 bytes", shortStream(aes128, "abcde")},
		{"AES-128 stream of 40 bytes", shortStream(aes128, "0123456789012345678901234567890123456789")},
		{"AES-256 stream of 16 bytes", shortStream(aes256, "0123456789abcdef")},
		{"AES-128 string of 3 bytes", withUpdate(aes128, map[int]string{12: "<< /Title (abc) >>"}, "")},
		{"incomplete xref subsection", incomplete(simple)},
		{"incomplete xref subsection, RC4-40", incomplete(read("r2-rc4-40.pdf"))},
		{"incomplete xref subsection, AES-256", incomplete(read("r6-aes-256.pdf"))},
		{"wrong offsets, AES-128", wrongOffsets(read("r4-aes-128.pdf"))},
		{"wrong offsets and a short stream, AES-256", wrongOffsets(shortStream(aes256, "abc"))},
	}
	for _, name := range qpdf {
		tests = append(tests, struct {
			name string
			data []byte
		}{"empty user password, " + name, read(name)})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustExtract(t, tt.data)
			if diff := cmp.Diff(want, pageTexts(d)); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
		})
	}
	for name, data := range map[string][]byte{
		"user password, RC4-40":                             read("user-r2-rc4-40.pdf"),
		"user password, AES-256":                            read("user-r6-aes-256.pdf"),
		"user password, pdfcpu AES-256":                     encryptedFixture(t),
		"user password, wrong offsets":                      wrongOffsets(read("user-r6-aes-256.pdf")),
		"user password, incomplete xref subsection":         incomplete(read("user-r2-rc4-40.pdf")),
		"user password, a short stream":                     shortStream(encryptedFixture(t), "abc"),
		"/Encrypt names a dictionary of an unknown handler": withUpdate(simple, map[int]string{13: "<< /Filter /Unknown /V 1 /R 2 /P -4 >>"}, "13 0 R"),
	} {
		if _, err := extractBytes(t, data, nil); !errors.Is(err, ErrEncrypted) {
			t.Errorf("%s: %v, want ErrEncrypted", name, err)
		}
	}
}
