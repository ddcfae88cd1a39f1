package object

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"regexp"
	"strconv"
	"sync"
)

// repairPerms makes an AES-256 file (revision 5 or 6) whose user password
// is empty readable when only its /Perms entry is wrong or missing. /Perms
// repeats the /P permission flags, encrypted with the file key, so that
// tampering with /P can be detected; viewers ignore it for reading, and
// real producers get it wrong. pdfcpu refuses such files, so this computes
// the file key from the empty password (ISO 32000-2 §7.6.4.3.3), writes a
// /Perms that agrees with /P into a copy of the encryption dictionary, and
// returns that copy as an incremental update to append to the file. It
// returns nil when the file is not such a file: then it stays refused as
// encrypted.
func repairPerms(data []byte) []byte {
	ref := lastRef(data, "Encrypt")
	if ref == "" {
		return nil
	}
	var nr, gen int
	if _, err := fmt.Sscanf(ref, "%d %d R", &nr, &gen); err != nil {
		return nil
	}
	start, end := lastObject(data, nr, gen)
	if start < 0 {
		return nil
	}
	body := data[start:end]
	ed := readEncryptDict(body)
	if ed.r != 5 && ed.r != 6 {
		return nil
	}
	fileKey := aes256FileKey(ed)
	if fileKey == nil {
		return nil
	}
	perms := make([]byte, 16)
	p := uint32(int32(ed.p))
	perms[0], perms[1], perms[2], perms[3] = byte(p), byte(p>>8), byte(p>>16), byte(p>>24)
	perms[4], perms[5], perms[6], perms[7] = 0xFF, 0xFF, 0xFF, 0xFF
	perms[8] = 'T'
	if !ed.encryptMetadata {
		perms[8] = 'F'
	}
	copy(perms[9:12], "adb")
	fb, err := aes.NewCipher(fileKey)
	if err != nil {
		return nil
	}
	fb.Encrypt(perms, perms)

	dict := make([]byte, 0, len(body)+48)
	if ed.permsStart >= 0 {
		dict = append(dict, body[:ed.permsStart]...)
		dict = append(dict, body[ed.permsEnd:ed.close]...)
	} else {
		dict = append(dict, body[:ed.close]...)
	}
	dict = append(dict, " /Perms <"+hex.EncodeToString(perms)+"> >>"...)

	var out bytes.Buffer
	base := len(data)
	off := base + out.Len() + 1
	fmt.Fprintf(&out, "\n%d %d obj\n", nr, gen)
	out.Write(dict)
	out.WriteString("\nendobj\n")
	xref := base + out.Len()
	fmt.Fprintf(&out, "xref\n%d 1\n%010d %05d n \n", nr, off, gen)
	writeUpdateTrailer(&out, data, nr+1, xref, fmt.Sprintf(" /Encrypt %d %d R", nr, gen), "Root", "Info")
	return out.Bytes()
}

// aes256FileKey returns the file key of an AES-256 file (revision 5 or
// 6) whose user password is empty, from /UE (ISO 32000-2 §7.6.4.3.3), or
// nil when the empty password is not the user password.
func aes256FileKey(ed encryptDict) []byte {
	if len(ed.u) < 48 || len(ed.ue) < 32 {
		return nil
	}
	salt, keySalt := ed.u[32:40], ed.u[40:48]
	if !bytes.Equal(Hash2B(ed.r, nil, salt), ed.u[:32]) {
		return nil // the user password is not empty
	}
	block, err := aes.NewCipher(Hash2B(ed.r, nil, keySalt))
	if err != nil {
		return nil
	}
	fileKey := make([]byte, 32)
	cipher.NewCBCDecrypter(block, make([]byte, 16)).CryptBlocks(fileKey, ed.ue[:32])
	return fileKey
}

// writeUpdateTrailer ends an incremental update of data whose cross-
// reference section starts at byte xref of the updated file: its trailer
// (a /Size of at least size and of data's own, extra, data's last
// references of keys, its /ID and a /Prev to its table) and startxref.
func writeUpdateTrailer(out *bytes.Buffer, data []byte, size, xref int, extra string, keys ...string) {
	if m := lastMatch(sizeKey(), data); m != nil {
		if n, err := strconv.Atoi(string(m[1])); err == nil {
			size = max(size, n)
		}
	}
	fmt.Fprintf(out, "trailer\n<< /Size %d%s", size, extra)
	for _, key := range keys {
		if r := lastRef(data, key); r != "" {
			fmt.Fprintf(out, " /%s %s", key, r)
		}
	}
	if id := lastMatch(trailerID(), data); id != nil {
		out.WriteString(" ")
		out.Write(id[0])
	}
	if m := lastMatch(startXRef(), data); m != nil {
		fmt.Fprintf(out, " /Prev %s", m[1])
	}
	fmt.Fprintf(out, " >>\nstartxref\n%d\n%%%%EOF\n", xref)
}

// RepairEncryption returns the repair of a file refused as encrypted:
// one whose /Encrypt cannot have encrypted it opens as the plain file it
// is (see unusedEncryption), through a cross-reference table rebuilt
// without /Encrypt; an AES-256 file with an empty user password and a
// wrong /Perms is mended by repairPerms. When the refusal was not for a
// password (pdfcpu could not reach the encryption dictionary through a
// broken table), the table is rebuilt as for any broken table. Any other
// file stays refused.
func RepairEncryption(password bool) func([]byte) []byte {
	return func(data []byte) []byte {
		if unusedEncryption(data) {
			return rebuildTable(data, "Info")
		}
		if update := repairPerms(data); update != nil || password {
			return update
		}
		return RebuildXRef(data)
	}
}

// unusedEncryption reports whether the file's last /Encrypt entry names
// no dictionary a security handler could have encrypted the file with:
// an object the file does not define, one that is not a dictionary, or a
// standard handler's dictionary without its numbers /R and /P or its
// password strings /O and /U. Viewers read such a file as not encrypted,
// and so does this package. A dictionary of another handler, or one
// without /Filter, is not taken for unused: viewers refuse those.
func unusedEncryption(data []byte) bool {
	ref := lastRef(data, "Encrypt")
	if ref == "" {
		return false
	}
	var nr, gen int
	if _, err := fmt.Sscanf(ref, "%d %d R", &nr, &gen); err != nil {
		return false
	}
	start, end := lastObject(data, nr, gen)
	if start < 0 {
		return true // no such object: the entry is a dangling reference
	}
	body := bytes.TrimLeft(data[start:end], " \t\r\n\f\x00")
	if !bytes.HasPrefix(body, []byte("<<")) {
		return true // null, a number, an array: no dictionary
	}
	ed := readEncryptDict(body)
	if ed.close < 0 {
		return false // a dictionary cut short: not enough to tell
	}
	return ed.filter == "Standard" && (!ed.hasR || !ed.hasP || ed.o == nil || ed.u == nil)
}

// RepairCipherBlocks is the repair of an AES-encrypted file with streams
// too short for their cipher: AES data is a 16-byte initialisation vector
// and whole 16-byte blocks, so a stream of 1 to 31 bytes, or one whose
// length is not a multiple of 16, cannot be decrypted. Viewers read such
// a stream as empty; pdfcpu refuses the whole file. This writes each one
// anew as an empty stream (its dictionary kept, /Length 0, which pdfcpu
// does not decrypt) in an update to append to the file, under its own
// object number so that the strings of its dictionary still decrypt. It
// returns nil when there is no such stream. Cross-reference streams,
// which are never encrypted, are left alone.
func RepairCipherBlocks(data []byte) []byte {
	limit := MaxEntries(int64(len(data)))
	type obj struct {
		nr, gen int
		dict    []byte
	}
	var short []obj
	seen := map[int]bool{}
	for h := range headers(data) {
		i, nr, gen := h.body, h.nr, h.gen
		if nr <= 0 || nr >= limit || len(short) >= limit {
			continue
		}
		n, dict, ok := streamLength(data[i:])
		if !ok || n == 0 || n >= 32 && n%16 == 0 || xrefType().Match(dict) {
			continue
		}
		if !seen[nr] {
			seen[nr] = true
			short = append(short, obj{nr, gen, dict})
		}
	}
	if len(short) == 0 {
		return nil
	}
	var out bytes.Buffer
	offs := make([]int, len(short))
	out.WriteString("\n")
	for j, o := range short {
		offs[j] = len(data) + out.Len()
		fmt.Fprintf(&out, "%d %d obj\n", o.nr, o.gen)
		out.Write(lengthKey().ReplaceAll(o.dict, []byte("/Length 0")))
		out.WriteString("\nstream\n\nendstream\nendobj\n")
	}
	xref := len(data) + out.Len()
	out.WriteString("xref\n")
	size := 0
	for j, o := range short {
		fmt.Fprintf(&out, "%d 1\n%010d %05d n \n", o.nr, offs[j], o.gen)
		size = max(size, o.nr+1)
	}
	writeUpdateTrailer(&out, data, size, xref, "", "Root", "Info", "Encrypt")
	return out.Bytes()
}

// streamLength returns the length of the stream data of the object whose
// body (after "obj") starts body, and its dictionary; ok is false when
// the object is not a stream. The length is the dictionary's direct
// /Length when the data of that length is followed by "endstream", else
// what lies between "stream" and "endstream" without the line end before
// it.
func streamLength(body []byte) (n int, dict []byte, ok bool) {
	dict, data, ok := streamParts(body)
	return len(data), dict, ok
}

// streamParts is streamLength's reading of a stream object: its
// dictionary and its data.
func streamParts(body []byte) (dict, data []byte, ok bool) {
	if e := bytes.Index(body, []byte("endobj")); e >= 0 {
		body = body[:e]
	}
	s := bytes.Index(body, []byte("stream"))
	if s < 0 || bytes.HasSuffix(bytes.TrimRight(body[:s], " \t\r\n"), []byte("end")) {
		return nil, nil, false
	}
	dict = bytes.TrimSpace(body[:s])
	if !bytes.HasPrefix(dict, []byte("<<")) {
		return nil, nil, false
	}
	rest := body[s+len("stream"):]
	if len(rest) > 0 && rest[0] == '\r' {
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0] == '\n' {
		rest = rest[1:]
	}
	e := bytes.Index(rest, []byte("endstream"))
	if e < 0 {
		return nil, nil, false
	}
	if m := directLength().FindSubmatch(dict); m != nil {
		if l, err := strconv.Atoi(string(m[1])); err == nil && l <= e &&
			len(bytes.TrimLeft(rest[l:e], " \t\r\n")) == 0 {
			return dict, rest[:l], true
		}
	}
	data = rest[:e]
	switch {
	case bytes.HasSuffix(data, []byte("\r\n")):
		data = data[:len(data)-2]
	case bytes.HasSuffix(data, []byte("\n")), bytes.HasSuffix(data, []byte("\r")):
		data = data[:len(data)-1]
	}
	return dict, data, true
}

var (
	directLength = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Length\s+(\d+)\b(?:\s*[/>])`) })
	xrefType     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Type\s*/XRef\b`) })
)

var (
	sizeKey   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Size\s+(\d+)`) })
	startXRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`startxref\s+(\d+)`) })
)

// lastObject finds the last definition of object nr (generation gen) and
// returns the bounds of its body, from after "obj" to before "endobj".
func lastObject(data []byte, nr, gen int) (int, int) {
	re := regexp.MustCompile(`(?:^|[\s>\]])` + strconv.Itoa(nr) + `\s+` + strconv.Itoa(gen) + `\s+obj\b`)
	loc := lastMatchIndex(re, data)
	if loc == nil {
		return -1, -1
	}
	start := loc[1]
	e := bytes.Index(data[start:], []byte("endobj"))
	if e < 0 {
		return -1, -1
	}
	return start, start + e
}

// encryptDict holds the entries of a standard security handler's
// dictionary that key derivation needs, and where /Perms and the closing
// ">>" sit in the object's body.
type encryptDict struct {
	v, r, p, length      int
	stmF, strF           string // "" when absent
	u, ue                []byte
	filter               string
	o                    []byte
	hasR, hasP           bool // /R and /P are numbers
	encryptMetadata      bool
	permsStart, permsEnd int // -1 when there is no /Perms
	close                int // offset of the dictionary's closing ">>"
}

func readEncryptDict(body []byte) encryptDict {
	ed := encryptDict{encryptMetadata: true, permsStart: -1, close: -1}
	lx := NewLexer(body)
	depth := 0
	var key string
	keyStart := 0
	for {
		before := lx.Pos
		t := lx.Next()
		switch t.Kind {
		case TokEOF:
			if ed.close < 0 {
				ed.r = 0
			}
			return ed
		case TokDictOpen, TokArrayOpen:
			depth++
			key = ""
			continue
		case TokDictClose, TokArrayClose:
			depth--
			if depth == 0 {
				ed.close = lx.Pos - 2
				return ed
			}
			continue
		}
		if depth != 1 {
			continue
		}
		if t.Kind == TokName && key == "" {
			key = string(t.Val)
			keyStart = before
			continue
		}
		switch key {
		case "Filter":
			if t.Kind == TokName {
				ed.filter = string(t.Val)
			}
		case "V":
			ed.v = int(t.Num)
		case "Length":
			ed.length = int(t.Num)
		case "StmF":
			ed.stmF = string(t.Val)
		case "StrF":
			ed.strF = string(t.Val)
		case "R":
			ed.r, ed.hasR = int(t.Num), t.Kind == TokNum
		case "P":
			ed.p, ed.hasP = int(t.Num), t.Kind == TokNum
		case "O":
			if t.Kind == TokString {
				ed.o = append([]byte(nil), t.Val...)
			}
		case "U":
			if t.Kind == TokString {
				ed.u = append([]byte(nil), t.Val...)
			}
		case "UE":
			ed.ue = append([]byte(nil), t.Val...)
		case "EncryptMetadata":
			ed.encryptMetadata = string(t.Val) != "false"
		case "Perms":
			ed.permsStart, ed.permsEnd = keyStart, lx.Pos
		}
		key = ""
	}
}

// Hash2B is the user password hash of revision 6 (ISO 32000-2 Algorithm
// 2.B, without the owner's extra input), or plain SHA-256 for revision 5.
func Hash2B(r int, password, salt []byte) []byte {
	h := sha256.New()
	h.Write(password)
	h.Write(salt)
	k := h.Sum(nil)
	if r == 5 {
		return k
	}
	var hashes = [3]func() hash.Hash{sha256.New, sha512.New384, sha512.New}
	for i := 0; ; i++ {
		unit := append(append([]byte(nil), password...), k...)
		k1 := bytes.Repeat(unit, 64)
		block, _ := aes.NewCipher(k[:16])
		e := make([]byte, len(k1))
		cipher.NewCBCEncrypter(block, k[16:32]).CryptBlocks(e, k1)
		sum := 0
		for _, b := range e[:16] {
			sum += int(b)
		}
		h := hashes[sum%3]()
		h.Write(e)
		k = h.Sum(nil)
		if i >= 63 && int(e[len(e)-1]) <= i+1-32 {
			break
		}
	}
	return k[:32]
}
