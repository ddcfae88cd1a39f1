// Command gen writes the generated tables of package font (internal/pdf/font)
// from published Adobe data, so that nothing is read from system paths at
// run time. It writes:
//
//   - zz_agl.go: the Adobe Glyph List (glyph name → Unicode), the glyph
//     names of StandardEncoding and MacRomanEncoding, and the CFF standard
//     strings;
//   - zz_cid.go: CID → Unicode for the Adobe-Japan1, -GB1, -CNS1 and -Korea1
//     character collections, from Adobe's <collection>-UCS2 CMaps.
//
// On Debian the inputs come from two packages:
//
//	apt-get install poppler-data python3-fonttools
//	go run ./internal/pdf/internal/gen \
//	    -agl /usr/lib/python3/dist-packages/fontTools/agl.py \
//	    -enc /usr/lib/python3/dist-packages/fontTools/encodings \
//	    -cff /usr/lib/python3/dist-packages/fontTools/cffLib/__init__.py \
//	    -cmap /usr/share/poppler/cMap \
//	    -out internal/pdf/font
//
// -agl also accepts Adobe's glyphlist.txt itself. All inputs are © Adobe,
// BSD-3-Clause; the licence text is copied into the generated files.
//
// zz_cmap.go (code → CID for the predefined CJK CMaps that are not
// Unicode-based) comes from the npm package pdfjs-dist, on its own:
//
//	npm pack pdfjs-dist@4 && tar -xzf pdfjs-dist-*.tgz
//	go run ./internal/pdf/internal/gen -bcmap package/cmaps -out internal/pdf/font
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	agl := flag.String("agl", "", "glyphlist.txt, or fontTools' agl.py holding it")
	enc := flag.String("enc", "", "folder with fontTools' StandardEncoding.py and MacRoman.py")
	cff := flag.String("cff", "", "fontTools' cffLib/__init__.py, for the 391 CFF standard strings")
	cmap := flag.String("cmap", "", "folder with Adobe-*/Adobe-*-UCS2 CMaps (poppler-data's cMap)")
	bc := flag.String("bcmap", "", "pdfjs-dist's cmaps folder (*.bcmap and LICENSE), for zz_cmap.go")
	out := flag.String("out", ".", "output folder (package font)")
	flag.Parse()
	tables := *agl != "" || *enc != "" || *cmap != "" || *cff != ""
	if (tables && (*agl == "" || *enc == "" || *cmap == "" || *cff == "")) || (!tables && *bc == "") {
		flag.Usage()
		os.Exit(2)
	}
	if tables {
		if err := writeAGL(*agl, *enc, *cff, filepath.Join(*out, "zz_agl.go")); err != nil {
			log.Fatal(err)
		}
		if err := writeCID(*cmap, filepath.Join(*out, "zz_cid.go")); err != nil {
			log.Fatal(err)
		}
	}
	if *bc != "" {
		if err := writePredef(*bc, filepath.Join(*out, "zz_cmap.go")); err != nil {
			log.Fatal(err)
		}
	}
}

const bsd3 = `// Redistribution and use in source and binary forms, with or without
// modification, are permitted provided that the following conditions are met:
//
// Redistributions of source code must retain the above copyright notice, this
// list of conditions and the following disclaimer.
//
// Redistributions in binary form must reproduce the above copyright notice,
// this list of conditions and the following disclaimer in the documentation
// and/or other materials provided with the distribution.
//
// Neither the name of Adobe nor the names of its contributors may be used to
// endorse or promote products derived from this software without specific
// prior written permission.
//
// THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
// AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
// IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
// ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE
// LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
// CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
// SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS
// INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN
// CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)
// ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
// POSSIBILITY OF SUCH DAMAGE.
`

func writeAGL(aglPath, encDir, cffPath, outPath string) error {
	raw, err := os.ReadFile(aglPath)
	if err != nil {
		return err
	}
	text := string(raw)
	// fontTools embeds glyphlist.txt as the Python string _aglText.
	if i := strings.Index(text, "_aglText = \"\"\"\\\n"); i >= 0 {
		text = text[i+len("_aglText = \"\"\"\\\n"):]
		if j := strings.Index(text, "\"\"\""); j >= 0 {
			text = text[:j]
		}
	}
	type entry struct{ name, text string }
	var entries []entry
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, codes, ok := strings.Cut(line, ";")
		if !ok {
			return fmt.Errorf("agl: bad line %q", line)
		}
		var sb strings.Builder
		for _, h := range strings.Fields(codes) {
			v, err := strconv.ParseUint(h, 16, 32)
			if err != nil {
				return fmt.Errorf("agl: bad code in %q: %w", line, err)
			}
			sb.WriteRune(rune(v))
		}
		entries = append(entries, entry{name, sb.String()})
	}
	if len(entries) < 4000 {
		return fmt.Errorf("agl: only %d entries read from %s", len(entries), aglPath)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })

	std, err := pyNameList(filepath.Join(encDir, "StandardEncoding.py"))
	if err != nil {
		return err
	}
	mac, err := pyNameList(filepath.Join(encDir, "MacRoman.py"))
	if err != nil {
		return err
	}

	cffRaw, err := os.ReadFile(cffPath)
	if err != nil {
		return err
	}
	cffText := string(cffRaw)
	i := strings.Index(cffText, "cffStandardStrings = [")
	if i < 0 {
		return fmt.Errorf("%s: no cffStandardStrings", cffPath)
	}
	cffText = cffText[i:]
	cffText = cffText[:strings.Index(cffText, "]")]
	var cffStrings []string
	for _, m := range pyString.FindAllStringSubmatch(cffText, -1) {
		cffStrings = append(cffStrings, m[1])
	}
	if len(cffStrings) != 391 {
		return fmt.Errorf("%s: %d CFF standard strings, want 391", cffPath, len(cffStrings))
	}

	var b bytes.Buffer
	b.WriteString("// Code generated by internal/gen; DO NOT EDIT.\n\n")
	b.WriteString("// The Adobe Glyph List 2.0, the StandardEncoding and MacRomanEncoding glyph\n// names and the CFF standard strings, from Adobe's published glyphlist.txt\n// (agl-aglfn) and specifications, as carried by Debian's python3-fonttools\n// package.\n//\n// Copyright 2002-2019 Adobe (http://www.adobe.com/).\n//\n")
	b.WriteString(bsd3)
	b.WriteString("\npackage font\n\n")
	b.WriteString("// aglNames and aglText are the Adobe Glyph List sorted by glyph name.\n")
	b.WriteString("var aglNames = [...]string{\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "%q,\n", e.name)
	}
	b.WriteString("}\n\nvar aglText = [...]string{\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "%+q,\n", e.text)
	}
	b.WriteString("}\n\n")
	writeNames := func(v string, names []string) {
		fmt.Fprintf(&b, "var %s = [256]string{\n", v)
		for i, n := range names {
			if n == ".notdef" || i >= 256 {
				continue
			}
			fmt.Fprintf(&b, "%d: %q,\n", i, n)
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("// standardNames holds the glyph names of StandardEncoding by code.\n")
	writeNames("standardNames", std)
	// fontTools' MacRoman list names the control codes (NUL, HT, ...);
	// MacRomanEncoding leaves them undefined.
	for i := 0; i < 32 && i < len(mac); i++ {
		mac[i] = ".notdef"
	}
	b.WriteString("// macRomanNames holds the glyph names of MacRomanEncoding by code.\n")
	writeNames("macRomanNames", mac)
	b.WriteString("// cffStandardStrings are the predefined strings (SIDs 0–390) of the\n// Compact Font Format, Adobe Technical Note #5176, Appendix A.\n")
	b.WriteString("var cffStandardStrings = [391]string{\n")
	for _, n := range cffStrings {
		fmt.Fprintf(&b, "%q,\n", n)
	}
	b.WriteString("}\n\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(outPath, src, 0o644)
}

var pyString = regexp.MustCompile(`'([^']*)'`)

func pyNameList(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range pyString.FindAllStringSubmatch(string(raw), -1) {
		names = append(names, m[1])
	}
	if len(names) < 256 {
		return nil, fmt.Errorf("%s: %d names, want 256", path, len(names))
	}
	return names[:256], nil
}

var hexTok = regexp.MustCompile(`<([0-9A-Fa-f]+)>`)

// writeCID converts each <collection>-UCS2 CMap (CID → UTF-16) into a
// string holding one rune per CID (U+0000 where unmapped), decoded lazily
// at run time. Multi-rune mappings go to a small map.
func writeCID(cmapDir, outPath string) error {
	collections := []string{"Adobe-Japan1", "Adobe-GB1", "Adobe-CNS1", "Adobe-Korea1"}
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/gen; DO NOT EDIT.\n\n")
	b.WriteString("// CID → Unicode tables for the Adobe-Japan1, Adobe-GB1, Adobe-CNS1 and\n// Adobe-Korea1 character collections, from Adobe's <collection>-UCS2 CMap\n// resources (adobe-type-tools/cmap-resources) as carried by Debian's\n// poppler-data package.\n//\n// Copyright 1990-2023 Adobe. All rights reserved.\n//\n")
	b.WriteString(bsd3)
	b.WriteString("\npackage font\n\n")
	for _, c := range collections {
		m, err := readUCS2(filepath.Join(cmapDir, c, c+"-UCS2"))
		if err != nil {
			return err
		}
		maxCID := 0
		for cid := range m {
			maxCID = max(maxCID, cid)
		}
		ident := strings.ReplaceAll(strings.TrimPrefix(c, "Adobe-"), "-", "")
		var multi []int
		fmt.Fprintf(&b, "// cid%s maps CID i of %s to the i-th rune (U+0000: unmapped).\n", ident, c)
		fmt.Fprintf(&b, "const cid%s = \"\" +\n", ident)
		var line strings.Builder
		for cid := 0; cid <= maxCID; cid++ {
			// Variation selectors only pick a glyph form; text drops them.
			rs := []rune(strings.Map(dropVS, m[cid]))
			m[cid] = string(rs)
			r := rune(0)
			if len(rs) == 1 && rs[0] != 0xFFFD {
				r = rs[0]
			} else if len(rs) > 1 {
				multi = append(multi, cid)
			}
			line.WriteRune(r)
			if cid%48 == 47 || cid == maxCID {
				q := strconv.QuoteToGraphic(line.String())
				fmt.Fprintf(&b, "\t%s", q)
				if cid != maxCID {
					b.WriteString(" +")
				}
				b.WriteString("\n")
				line.Reset()
			}
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "// cid%sMulti holds the CIDs of %s that map to several runes.\n", ident, c)
		fmt.Fprintf(&b, "var cid%sMulti = map[uint16]string{\n", ident)
		for _, cid := range multi {
			fmt.Fprintf(&b, "%d: %+q,\n", cid, m[cid])
		}
		b.WriteString("}\n\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(outPath, src, 0o644)
}

func dropVS(r rune) rune {
	if (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0xE0100 && r <= 0xE01EF) {
		return -1
	}
	return r
}

// readUCS2 reads the bfchar and bfrange sections of a CID → UTF-16 CMap.
func readUCS2(path string) (map[int]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[int]string{}
	mode := ""
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasSuffix(line, "beginbfchar"):
			mode = "char"
			continue
		case strings.HasSuffix(line, "beginbfrange"):
			mode = "range"
			continue
		case strings.HasPrefix(line, "end"):
			mode = ""
			continue
		}
		toks := hexTok.FindAllStringSubmatch(line, -1)
		switch {
		case mode == "char" && len(toks) == 2:
			cid, _ := strconv.ParseUint(toks[0][1], 16, 32)
			m[int(cid)] = utf16Hex(toks[1][1])
		case mode == "range" && len(toks) == 3 && !strings.Contains(line, "["):
			lo, _ := strconv.ParseUint(toks[0][1], 16, 32)
			hi, _ := strconv.ParseUint(toks[1][1], 16, 32)
			base := []rune(utf16Hex(toks[2][1]))
			for cid := lo; cid <= hi && len(base) > 0; cid++ {
				rs := append([]rune(nil), base...)
				rs[len(rs)-1] += rune(cid - lo)
				m[int(cid)] = string(rs)
			}
		case mode == "range" && strings.Contains(line, "["):
			lo, _ := strconv.ParseUint(toks[0][1], 16, 32)
			for i, t := range toks[2:] {
				m[int(lo)+i] = utf16Hex(t[1])
			}
		}
	}
	if len(m) < 1000 {
		return nil, fmt.Errorf("%s: only %d CIDs mapped", path, len(m))
	}
	return m, sc.Err()
}

func utf16Hex(h string) string {
	var units []uint16
	for i := 0; i+4 <= len(h); i += 4 {
		v, _ := strconv.ParseUint(h[i:i+4], 16, 16)
		units = append(units, uint16(v))
	}
	var sb strings.Builder
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		if u >= 0xD800 && u < 0xDC00 && i+1 < len(units) {
			lo := rune(units[i+1])
			if lo >= 0xDC00 && lo < 0xE000 {
				sb.WriteRune((u-0xD800)<<10 + (lo - 0xDC00) + 0x10000)
				i++
				continue
			}
		}
		sb.WriteRune(u)
	}
	return sb.String()
}
