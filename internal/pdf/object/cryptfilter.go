package object

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// ErrCryptFilters marks a file whose encryption leaves its streams or its
// strings in clear (the Identity crypt filter) while it encrypts the
// others: pdfcpu decrypts both alike, which turns the clear ones into
// noise. The file is decrypted here instead (RepairCryptFilters).
var ErrCryptFilters = errors.New("streams or strings left in clear by the Identity crypt filter")

// IdentityCrypt reports whether the file that xr reads is encrypted with
// crypt filters (/V 4 or 5) of which /StmF or /StrF is /Identity, the
// default when the entry is absent.
func IdentityCrypt(xr *model.XRefTable) bool {
	if xr == nil || xr.Encrypt == nil {
		return false
	}
	d, err := xr.DereferenceDict(*xr.Encrypt)
	if err != nil || d == nil {
		return false
	}
	if v := d.IntEntry("V"); v == nil || *v < 4 {
		return false
	}
	identity := func(key string) bool {
		n := d.NameEntry(key)
		return n == nil || *n == "Identity"
	}
	return identity("StmF") || identity("StrF")
}

// cryptMethods matches each crypt filter of a /CF dictionary, its name and
// its method (/CFM): /StdCF << /CFM /AESV2 ... >>.
var cryptMethods = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/([^\s/<>\[\]()]+)\s*<<[^<>]*?/CFM\s*/(\w+)`) })

// RepairCryptFilters is the repair of a file refused with ErrCryptFilters:
// a standard security handler of revision 4, 5 or 6 whose user password is
// empty and whose /StmF or /StrF is /Identity. It decrypts what the other
// filter encrypts, as viewers do (each string of each object, or each
// stream but the cross-reference streams and, with /EncryptMetadata
// false, the metadata), writes each object it changed anew after the
// file, and ends with a table rebuilt without /Encrypt (rebuildTable), so
// that the file reads as the plain file it holds. It returns nil when the
// file is not such a file or the empty password does not open it.
func RepairCryptFilters(data []byte) []byte {
	ref := lastRef(data, "Encrypt")
	var encNr, encGen int
	if _, err := fmt.Sscanf(ref, "%d %d R", &encNr, &encGen); err != nil {
		return nil
	}
	start, end := lastObject(data, encNr, encGen)
	if start < 0 {
		return nil
	}
	body := data[start:end]
	ed := readEncryptDict(body)
	if ed.filter != "Standard" || ed.v < 4 {
		return nil
	}
	methods := map[string]string{"Identity": "None"}
	for _, m := range cryptMethods().FindAllSubmatch(body, -1) {
		if _, ok := methods[string(m[1])]; !ok {
			methods[string(m[1])] = string(m[2])
		}
	}
	method := func(filter string) string {
		if filter == "" {
			return "None" // /Identity is the default
		}
		return methods[filter]
	}
	stm, str := method(ed.stmF), method(ed.strF)
	for _, m := range []string{stm, str} {
		if m != "None" && m != "V2" && m != "AESV2" && m != "AESV3" {
			return nil // an unknown filter or method
		}
	}
	key := emptyPasswordKey(data, ed)
	if key == nil {
		return nil
	}

	limit := MaxEntries(int64(len(data)))
	var out bytes.Buffer
	out.WriteString("\n")
	n := 0
	for h := range headers(data) {
		i, nr, gen := h.body, h.nr, h.gen
		if nr <= 0 || nr >= limit || nr == encNr && gen == encGen {
			continue
		}
		if n++; n > limit {
			break
		}
		obj := data[i:]
		if e := bytes.Index(obj, []byte("endobj")); e >= 0 {
			obj = obj[:e]
		}
		strs := func(src []byte) []byte {
			if str == "None" {
				return src
			}
			return rewriteStrings(src, func(s []byte) []byte { return decryptWith(str, objectKey(key, str, nr, gen), s) })
		}
		if dict, raw, ok := streamParts(obj); ok {
			if xrefType().Match(dict) {
				continue
			}
			plain := raw
			metadata := metadataType().Match(dict)
			if stm != "None" && (ed.encryptMetadata || !metadata) {
				plain = decryptWith(stm, objectKey(key, stm, nr, gen), raw)
			}
			newDict := strs(dict)
			if bytes.Equal(newDict, dict) && stm == "None" {
				continue // nothing of it was encrypted
			}
			newDict = lengthKey().ReplaceAll(newDict, []byte(fmt.Sprintf("/Length %d", len(plain))))
			fmt.Fprintf(&out, "%d %d obj\n", nr, gen)
			out.Write(newDict)
			out.WriteString("\nstream\n")
			out.Write(plain)
			out.WriteString("\nendstream\nendobj\n")
			continue
		}
		if newObj := strs(obj); !bytes.Equal(newObj, obj) {
			fmt.Fprintf(&out, "%d %d obj\n", nr, gen)
			out.Write(bytes.TrimSpace(newObj))
			out.WriteString("\nendobj\n")
		}
	}
	update := out.Bytes()
	table := rebuildTable(append(data[:len(data):len(data)], update...), "Info")
	if table == nil {
		return nil
	}
	return append(update, table...)
}

var metadataType = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Type\s*/Metadata\b`) })

// emptyPasswordKey returns the file key of the standard security handler
// ed describes when the user password is empty (ISO 32000-1 §7.6.3.3,
// algorithms 2 and 6, for revisions 2 to 4; §7.6.4.3.3 for 5 and 6), or
// nil when it is not.
func emptyPasswordKey(data []byte, ed encryptDict) []byte {
	if ed.r >= 5 {
		return aes256FileKey(ed)
	}
	if len(ed.o) < 32 || len(ed.u) < 16 || ed.r < 2 {
		return nil
	}
	var id0 []byte
	if m := lastMatch(trailerID(), data); m != nil {
		if s := bytes.IndexByte(m[0], '<'); s >= 0 {
			if e := bytes.IndexByte(m[0][s:], '>'); e >= 0 {
				id0, _ = hex.DecodeString(string(bytes.Join(bytes.Fields(m[0][s+1:s+e]), nil)))
			}
		}
	}
	n := 5
	if ed.r >= 3 {
		n = 16
		if ed.length >= 40 && ed.length <= 128 && ed.length%8 == 0 {
			n = ed.length / 8
		}
	}
	p := uint32(int32(ed.p))
	h := md5.New()
	h.Write(passwordPadding)
	h.Write(ed.o[:32])
	h.Write([]byte{byte(p), byte(p >> 8), byte(p >> 16), byte(p >> 24)})
	h.Write(id0)
	if ed.r >= 4 && !ed.encryptMetadata {
		h.Write([]byte{0xff, 0xff, 0xff, 0xff})
	}
	key := h.Sum(nil)
	if ed.r >= 3 {
		for range 50 {
			sum := md5.Sum(key[:n])
			key = sum[:]
		}
	}
	key = key[:n]
	// Check the key against /U: algorithm 4 (revision 2) or 5.
	var u []byte
	if ed.r == 2 {
		u = append([]byte(nil), passwordPadding...)
		rc4XOR(key, u)
	} else {
		h := md5.New()
		h.Write(passwordPadding)
		h.Write(id0)
		u = h.Sum(nil)
		k := make([]byte, len(key))
		for i := range 20 {
			for j := range key {
				k[j] = key[j] ^ byte(i)
			}
			rc4XOR(k, u)
		}
	}
	if !bytes.Equal(u[:16], ed.u[:16]) {
		return nil
	}
	return key
}

// passwordPadding pads passwords to 32 bytes (ISO 32000-1 §7.6.3.3).
var passwordPadding = []byte("\x28\xbf\x4e\x5e\x4e\x75\x8a\x41\x64\x00\x4e\x56\xff\xfa\x01\x08\x2e\x2e\x00\xb6\xd0\x68\x3e\x80\x2f\x0c\xa9\xfe\x64\x53\x69\x7a")

func rc4XOR(key, data []byte) {
	c, err := rc4.NewCipher(key)
	if err != nil {
		return
	}
	c.XORKeyStream(data, data)
}

// objectKey returns the key of object nr, gen under method: the file key
// itself for AES-256, else ISO 32000-1 §7.6.2 algorithm 1.
func objectKey(key []byte, method string, nr, gen int) []byte {
	if method == "AESV3" {
		return key
	}
	h := md5.New()
	h.Write(key)
	h.Write([]byte{byte(nr), byte(nr >> 8), byte(nr >> 16), byte(gen), byte(gen >> 8)})
	if method == "AESV2" {
		h.Write([]byte("sAlT"))
	}
	return h.Sum(nil)[:min(len(key)+5, 16)]
}

// decryptWith decrypts data with method (RC4 or AES-CBC with its
// initialisation vector first and PKCS#5 padding). AES data that is not
// whole blocks reads as nothing, as viewers read it.
func decryptWith(method string, key, data []byte) []byte {
	if method == "V2" {
		out := append([]byte(nil), data...)
		rc4XOR(key, out)
		return out
	}
	if len(data) < 32 || len(data)%aes.BlockSize != 0 {
		return nil
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil
	}
	out := make([]byte, len(data)-aes.BlockSize)
	cipher.NewCBCDecrypter(block, data[:aes.BlockSize]).CryptBlocks(out, data[aes.BlockSize:])
	if pad := int(out[len(out)-1]); pad >= 1 && pad <= aes.BlockSize && bytes.Equal(out[len(out)-pad:], bytes.Repeat([]byte{byte(pad)}, pad)) {
		out = out[:len(out)-pad]
	}
	return out
}

// rewriteStrings returns src (an object or a dictionary) with each string
// replaced by f of its bytes, written as a hex string.
func rewriteStrings(src []byte, f func([]byte) []byte) []byte {
	lx := NewLexer(src)
	var out bytes.Buffer
	last := 0
	for {
		start := skipSpaceAndComments(src, lx.Pos)
		t := lx.Next()
		if t.Kind == TokEOF {
			break
		}
		if t.Kind != TokString {
			continue
		}
		out.Write(src[last:start])
		out.WriteString("<" + hex.EncodeToString(f(t.Val)) + ">")
		last = lx.Pos
	}
	if last == 0 {
		return src
	}
	out.Write(src[last:])
	return out.Bytes()
}

// skipSpaceAndComments returns the offset of the first byte at or after
// i that is neither white space nor in a comment, as the lexer skips them.
func skipSpaceAndComments(d []byte, i int) int {
	for i < len(d) {
		switch {
		case isSpace(d[i]):
			i++
		case d[i] == '%':
			for i < len(d) && d[i] != '\n' && d[i] != '\r' {
				i++
			}
		default:
			return i
		}
	}
	return i
}
