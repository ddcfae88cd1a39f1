package pdf

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/pdf/object"
	"github.com/researchctx/researchctx/internal/testkit/pdfbuild"
)

// tool returns the path of an external program a test compares with or
// makes fixtures with; it skips the test when the program is missing, and
// fails it under CI=true, where .ci/run installs it.
func tool(t *testing.T, name string) string {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (.ci/run installs it)", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return bin
}

// xmpPacket is the metadata stream of the encryption fixtures' source.
const xmpPacket = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">XMP Title</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`

// encryptionSource is the plain file the encryption fixtures are made
// from: simple.pdf's two pages, its Info dictionary and an XMP stream.
func encryptionSource() []byte {
	// simple.pdf's pages, rebuilt with a /Metadata stream in the catalog.
	return simpleDoc([]page{
		{content: `BT /F1 24 Tf 72 700 Td (A Study of Things) Tj ET
BT /F1 12 Tf 72 670 Td (Ada Lovelace, Charles Babbage) Tj ET
BT /F1 10 Tf 14 TL 72 600 Td [(Hello) -250 (W) 80 (orld)] TJ T* (second line here) Tj
(third line) ' 2 0 (fourth line) " ET
BT /F1 10 Tf 72 520 Td (after a gap) Tj ET`},
		{content: `BT /F1 10 Tf 72 700 Td (1 Introduction) Tj 0 -14 Td (Body text on page two.) Tj ET`},
	}, "", "<< /Title (Info Title) /Author (Ada Lovelace and Charles Babbage) >>", func(b *pdfbuild.Builder, _ []int) string {
		return fmt.Sprintf("/Metadata %d 0 R", b.Stream("/Type /Metadata /Subtype /XML", xmpPacket))
	})
}

// padding is the standard security handler's password padding.
var padding = []byte("\x28\xbf\x4e\x5e\x4e\x75\x8a\x41\x64\x00\x4e\x56\xff\xfa\x01\x08\x2e\x2e\x00\xb6\xd0\x68\x3e\x80\x2f\x0c\xa9\xfe\x64\x53\x69\x7a")

// cryptFilters describes an encryption with crypt filters: the method
// of /StdCF (AESV2 or V2, RC4, for revision 4; AESV3 for revision 6) and
// which filter streams and strings use (StdCF or Identity).
type cryptFilters struct {
	cfm, stmF, strF string
	encryptMetadata bool
}

// encryptV4 encrypts a file written by pdfbuild.Builder with the standard
// security handler, revision 4 (or 6 for AESV3), an empty user password
// and the crypt filters of cf (ISO 32000-1 §7.6.3, algorithms 1 to 5;
// ISO 32000-2 §7.6.4.3.3). qpdf, which
// makes the other fixtures, always names /StdCF for both streams and
// strings; real producers also name /Identity for one of them.
func encryptV4(t *testing.T, plain []byte, cf cryptFilters) []byte {
	t.Helper()
	id := []byte("0123456789abcdef")
	p := int32(-3904)
	// Algorithm 3: /O from the owner password "owner".
	h := md5.Sum(append([]byte("owner"), padding[:32-len("owner")]...))
	for range 50 {
		h = md5.Sum(h[:])
	}
	o := append([]byte(nil), padding...)
	for i := range 20 {
		rc4With(xorKey(h[:], i), o)
	}
	// Algorithm 2: the file key from the empty user password.
	in := append(append(append([]byte(nil), padding...), o...), byte(p), byte(p>>8), byte(p>>16), byte(p>>24))
	in = append(in, id...)
	if !cf.encryptMetadata {
		in = append(in, 0xff, 0xff, 0xff, 0xff)
	}
	key := md5.Sum(in)
	for range 50 {
		key = md5.Sum(key[:])
	}
	// Algorithm 5: /U.
	u := md5.Sum(append(append([]byte(nil), padding...), id...))
	us := u[:]
	for i := range 20 {
		rc4With(xorKey(key[:], i), us)
	}
	us = append(us, make([]byte, 16)...)

	handler := fmt.Sprintf("/V 4 /R 4 /Length 128 /CF << /StdCF << /Type /CryptFilter /CFM /%s /AuthEvent /DocOpen /Length 16 >> >> /O <%x> /U <%x>", cf.cfm, o, us)
	var fileKey []byte // AES-256: the file key is every object's key
	if cf.cfm == "AESV3" {
		// Revision 6 (ISO 32000-2 §7.6.4.3.3): /U is the empty
		// password's hash with a validation salt, then that salt and a
		// key salt; /UE the file key encrypted with the key salt's hash;
		// /Perms repeats /P under the file key. The owner entries only
		// serve the owner password, which no reader here is given.
		fileKey = bytes.Repeat([]byte("k"), 32)
		vsalt, ksalt := []byte("vsalt123"), []byte("ksalt123")
		u := append(append(object.Hash2B(6, nil, vsalt), vsalt...), ksalt...)
		block, err := aes.NewCipher(object.Hash2B(6, nil, ksalt))
		if err != nil {
			t.Fatal(err)
		}
		ue := make([]byte, 32)
		cipher.NewCBCEncrypter(block, make([]byte, 16)).CryptBlocks(ue, fileKey)
		perms := []byte{byte(p), byte(p >> 8), byte(p >> 16), byte(p >> 24), 0xff, 0xff, 0xff, 0xff, 'T', 'a', 'd', 'b', 0, 0, 0, 0}
		if !cf.encryptMetadata {
			perms[8] = 'F'
		}
		fb, err := aes.NewCipher(fileKey)
		if err != nil {
			t.Fatal(err)
		}
		fb.Encrypt(perms, perms)
		handler = fmt.Sprintf("/V 5 /R 6 /Length 256 /CF << /StdCF << /Type /CryptFilter /CFM /AESV3 /AuthEvent /DocOpen /Length 32 >> >> /O <%x> /U <%x> /OE <%x> /UE <%x> /Perms <%x>",
			bytes.Repeat([]byte{1}, 48), u, bytes.Repeat([]byte{2}, 32), ue, perms)
	}
	crypt := func(nr int, data []byte) []byte {
		in := append(append([]byte(nil), key[:]...), byte(nr), byte(nr>>8), byte(nr>>16), 0, 0)
		if cf.cfm == "AESV2" {
			in = append(in, "sAlT"...)
		}
		k := md5.Sum(in)
		objKey := k[:]
		if fileKey != nil {
			objKey = fileKey
		}
		if cf.cfm == "V2" {
			out := append([]byte(nil), data...)
			rc4With(k[:], out)
			return out
		}
		block, err := aes.NewCipher(objKey)
		if err != nil {
			t.Fatal(err)
		}
		n := 16 - len(data)%16
		buf := append(append([]byte(nil), data...), bytes.Repeat([]byte{byte(n)}, n)...)
		iv := md5.Sum([]byte(strconv.Itoa(nr))) // any vector will do
		out := append([]byte(nil), iv[:]...)
		ct := make([]byte, len(buf))
		cipher.NewCBCEncrypter(block, iv[:]).CryptBlocks(ct, buf)
		return append(out, ct...)
	}
	strs := func(nr int, src []byte) []byte {
		if cf.strF == "Identity" {
			return src
		}
		return pdfStrings.ReplaceAllFunc(src, func(s []byte) []byte {
			if s[0] == '<' && (len(s) < 2 || s[1] == '<') || s[0] == '>' {
				return s
			}
			var raw []byte
			if s[0] == '<' {
				raw, _ = hex.DecodeString(string(bytes.Trim(s, "<>")))
			} else {
				raw = s[1 : len(s)-1]
				if bytes.IndexByte(raw, '\\') >= 0 {
					t.Fatalf("object %d: escapes in %s are not supported", nr, s)
				}
			}
			return []byte("<" + hex.EncodeToString(crypt(nr, raw)) + ">")
		})
	}

	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	var offs []int
	for _, m := range builtObject.FindAllSubmatch(plain, -1) {
		nr, _ := strconv.Atoi(string(m[1]))
		body := m[2]
		if s := bytes.Index(body, []byte("\nstream\n")); s >= 0 {
			dict := body[:s]
			data := body[s+len("\nstream\n") : len(body)-len("endstream")]
			metadata := bytes.Contains(dict, []byte("/Type /Metadata"))
			if cf.stmF != "Identity" && (cf.encryptMetadata || !metadata) {
				data = crypt(nr, data)
			}
			dict = regexp.MustCompile(`/Length \d+`).ReplaceAll(strs(nr, dict), []byte("/Length "+strconv.Itoa(len(data))))
			body = append(append(append(dict, "\nstream\n"...), data...), "\nendstream"...)
		} else {
			body = strs(nr, body)
		}
		offs = append(offs, out.Len())
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", nr, body)
	}
	enc := len(offs) + 1
	offs = append(offs, out.Len())
	meta := ""
	if !cf.encryptMetadata {
		meta = " /EncryptMetadata false"
	}
	fmt.Fprintf(&out, "%d 0 obj\n<< /Filter /Standard %s /StmF /%s /StrF /%s /P %d%s >>\nendobj\n",
		enc, handler, cf.stmF, cf.strF, p, meta)
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, off := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %s /Info %s /Encrypt %d 0 R /ID [<%x> <%x>] >>\nstartxref\n%d\n%%%%EOF\n",
		len(offs)+1, lastRef(plain, "Root"), lastRef(plain, "Info"), enc, id, id, xref)
	return out.Bytes()
}

var (
	builtObject = regexp.MustCompile(`(?s)(\d+) 0 obj\n(.*?)\nendobj\n`)
	// pdfStrings matches literal strings without nested parentheses,
	// hex strings, and the dictionary brackets that are left alone.
	pdfStrings = regexp.MustCompile(`<<|>>|\((?:[^()\\]|\\.)*\)|<[0-9A-Fa-f]*>`)
)

func rc4With(key, data []byte) {
	c, _ := rc4.NewCipher(key)
	c.XORKeyStream(data, data)
}

func xorKey(key []byte, i int) []byte {
	k := make([]byte, len(key))
	for j := range key {
		k[j] = key[j] ^ byte(i)
	}
	return k
}

// TestEncryptedMatchPdftotext: one fixture per revision, key length,
// cipher and option of the standard security handler with an empty user
// password, made by qpdf (or, for crypt filters qpdf does not write, by
// encryptV4), opens with the text, Info title and XMP packet of the plain
// file, as pdftotext reads it: permissions that deny copying text are not
// enforced, metadata left in clear (EncryptMetadata false) is read as
// is, embedded files encrypted with their own filter do not stop the
// document, and streams or strings that an Identity crypt filter leaves
// in clear are read as they are while the others are decrypted.
func TestEncryptedMatchPdftotext(t *testing.T) {
	qpdf := tool(t, "qpdf")
	pdftotext := tool(t, "pdftotext")
	dir := t.TempDir()
	src := encryptionSource()
	plain := filepath.Join(dir, "plain.pdf")
	note := filepath.Join(dir, "note.txt")
	attached := filepath.Join(dir, "attached.pdf")
	if err := os.WriteFile(plain, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte("An attached note.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(qpdf, plain, "--add-attachment", note, "--", attached).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --add-attachment: %v\n%s", err, out)
	}
	want := pageTexts(mustExtract(t, src))

	type fixture struct {
		name string
		args []string // qpdf's encryption options after the key length
		bits string
		v4   *cryptFilters
		// viaQpdf: poppler 22.12 misreads the file (it refuses strings
		// left in clear under encrypted streams, and decrypts AES-256
		// streams left in clear), so the reference is pdftotext on
		// qpdf's decryption of it.
		viaQpdf bool
	}
	var cases []fixture
	for _, c := range []fixture{
		{name: "R2 RC4 40-bit", bits: "40"},
		{name: "R3 RC4 128-bit", bits: "128", args: []string{"--use-aes=n"}},
		{name: "R4 RC4 128-bit", bits: "128", args: []string{"--use-aes=n", "--force-V4"}},
		{name: "R4 AES-128", bits: "128", args: []string{"--use-aes=y"}},
		{name: "R5 AES-256", bits: "256", args: []string{"--force-R5"}},
		{name: "R6 AES-256", bits: "256"},
	} {
		deny := []string{"--extract=n", "--accessibility=n", "--print=none", "--modify=none"}
		if c.bits == "40" {
			deny = []string{"--extract=n", "--print=n", "--modify=n"}
		}
		cases = append(cases, c,
			fixture{name: c.name + ", extraction denied", bits: c.bits, args: append(c.args[:len(c.args):len(c.args)], deny...)})
		if c.bits != "40" && c.name != "R3 RC4 128-bit" {
			cases = append(cases, fixture{name: c.name + ", metadata in clear", bits: c.bits, args: append(c.args[:len(c.args):len(c.args)], "--cleartext-metadata")})
		}
	}
	cases = append(cases,
		fixture{name: "R4 AES-128, strings Identity", v4: &cryptFilters{"AESV2", "StdCF", "Identity", true}, viaQpdf: true},
		fixture{name: "R4 RC4 128-bit, strings Identity", v4: &cryptFilters{"V2", "StdCF", "Identity", true}, viaQpdf: true},
		fixture{name: "R4 AES-128, streams Identity", v4: &cryptFilters{"AESV2", "Identity", "StdCF", true}},
		fixture{name: "R4 RC4 128-bit, streams Identity, metadata in clear", v4: &cryptFilters{"V2", "Identity", "StdCF", false}},
		fixture{name: "R6 AES-256, strings Identity", v4: &cryptFilters{"AESV3", "StdCF", "Identity", true}, viaQpdf: true},
		fixture{name: "R6 AES-256, streams Identity, metadata in clear", v4: &cryptFilters{"AESV3", "Identity", "StdCF", false}, viaQpdf: true},
		fixture{name: "R6 AES-256 crypt filter, metadata in clear", v4: &cryptFilters{"AESV3", "StdCF", "StdCF", false}},
		fixture{name: "R4 AES-128 crypt filter, metadata in clear", v4: &cryptFilters{"AESV2", "StdCF", "StdCF", false}},
		fixture{name: "R4 RC4 128-bit crypt filter, metadata in clear", v4: &cryptFilters{"V2", "StdCF", "StdCF", false}},
	)
	for _, c := range cases {
		for _, source := range []string{plain, attached} {
			name := c.name
			if source == attached {
				if c.v4 != nil {
					continue
				}
				name += ", an attachment"
			}
			t.Run(name, func(t *testing.T) {
				// Each case waits on qpdf and pdftotext, in a folder of its own.
				t.Parallel()
				path := filepath.Join(t.TempDir(), "enc.pdf")
				if c.v4 != nil {
					if err := os.WriteFile(path, encryptV4(t, src, *c.v4), 0o644); err != nil {
						t.Fatal(err)
					}
				} else {
					args := append([]string{"--allow-weak-crypto", "--encrypt", "", "owner", c.bits}, c.args...)
					args = append(args, "--", source, path)
					if out, err := exec.Command(qpdf, args...).CombinedOutput(); err != nil {
						t.Fatalf("qpdf %q: %v\n%s", args, err, out)
					}
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains(data, []byte("/Encrypt")) {
					t.Fatal("the fixture is not encrypted")
				}
				d := mustExtract(t, data)
				if diff := cmp.Diff(want, pageTexts(d)); diff != "" {
					t.Errorf("pages (-plain +encrypted):\n%s", diff)
				}
				if d.InfoTitle != "Info Title" {
					t.Errorf("Info title %q", d.InfoTitle)
				}
				if string(d.XMP) != xmpPacket+"\n" {
					t.Errorf("XMP %q", d.XMP)
				}
				refPath := path
				if c.viaQpdf {
					refPath = filepath.Join(filepath.Dir(path), "decrypted.pdf")
					if out, err := exec.Command(qpdf, "--decrypt", path, refPath).CombinedOutput(); err != nil {
						t.Fatalf("qpdf --decrypt: %v\n%s", err, out)
					}
				}
				ref, err := exec.Command(pdftotext, "-q", "-enc", "UTF-8", refPath, "-").Output()
				if err != nil {
					t.Fatalf("pdftotext: %v", err)
				}
				var ours bytes.Buffer
				for _, p := range d.Pages {
					ours.WriteString(p.Text + "\n")
				}
				if diff := cmp.Diff(tokens(string(ref)), tokens(ours.String())); diff != "" {
					t.Errorf("words (-pdftotext +ours):\n%s", diff)
				}
			})
		}
	}
}

// TestCryptFilterRepairRefuses: a file with an Identity crypt filter that
// the empty password does not open, or whose other filter has a method
// this package does not know, is not decrypted by object.RepairCryptFilters and
// stays refused as ErrEncrypted, never read as noise.
func TestCryptFilterRepairRefuses(t *testing.T) {
	data := encryptV4(t, encryptionSource(), cryptFilters{"AESV2", "Identity", "StdCF", true})
	if object.RepairCryptFilters(data) == nil {
		t.Fatal("the well-formed file is not repaired")
	}
	// Every cut of the file: the repair neither panics nor reads past it.
	for n := range len(data) {
		object.RepairCryptFilters(data[:n:n])
	}
	for name, bad := range map[string][]byte{
		"unknown method":         bytes.Replace(data, []byte("/CFM /AESV2"), []byte("/CFM /Foo"), 1),
		"not the empty password": bytes.Replace(data, []byte("/U <"), []byte("/U <00"), 1),
		"no file identifier":     regexp.MustCompile(`/ID \[<[0-9a-f]+> <[0-9a-f]+>\]`).ReplaceAll(data, nil),
	} {
		t.Run(name, func(t *testing.T) {
			if update := object.RepairCryptFilters(bad); update != nil {
				t.Errorf("repaired with an update of %d bytes", len(update))
			}
			if _, err := extractBytes(t, bad, nil); !errors.Is(err, ErrEncrypted) {
				t.Errorf("%v, want ErrEncrypted", err)
			}
		})
	}
}
