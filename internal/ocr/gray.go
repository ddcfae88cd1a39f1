package ocr

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"strconv"
)

// maxGrayPixels bounds the JPEG pages that grayJPEG decodes: a page of
// more pixels goes to the engine as it is stored. Decoding one holds its
// planes (at most three bytes a pixel) and the grey copy (one) in this
// process: 40 MiB at most, within a page's OCR budget; 10 Mi pixels is a
// letter page at 330 dpi.
const maxGrayPixels = 10 << 20

// grayTolerance is how far from neutral (128) a pixel's chroma may be in
// a JPEG that grayJPEG takes as grey: a grey page coded in colour has
// neutral chroma but for a rounding step.
const grayTolerance = 2

// grayJPEG returns a JPEG page coded in colour (three components) whose
// pixels are all grey as the grey PGM it is, and the resolution in dots
// per inch its JFIF header gives (0: none). ok is false for any other
// image (grey-coded, in colour, over maxGrayPixels, not decodable), which
// the engine is given as it is.
//
// The tesseract program reads a colour JPEG as a colour image and works
// on it as one (a threshold per channel, copies of 32 bits a pixel): the
// same page handed over as grey took about a tenth less of its CPU on the
// benchmark's scans, for the decoding here (some tens of milliseconds).
// The resolution goes with it (--dpi), as the program would have read it
// from the JPEG, so that it does not estimate another from the text.
func grayJPEG(data []byte) (pgm []byte, dpi int, ok bool) {
	// Only a sequential frame: its decoding costs time in proportion to
	// its bytes, as every block of a scan takes some bits. A progressive
	// frame's scans may cover every block with a few bytes each (a run of
	// empty blocks), so a hostile page could hold the worker for minutes
	// before the engine's deadline starts to matter.
	if m := jpegFrame(data); m != 0xC0 && m != 0xC1 {
		return nil, 0, false
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.ColorModel != color.YCbCrModel || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxGrayPixels {
		return nil, 0, false
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, 0, false
	}
	m, isYCbCr := img.(*image.YCbCr)
	if !isYCbCr {
		return nil, 0, false // an Adobe RGB JPEG
	}
	for _, plane := range [][]byte{m.Cb, m.Cr} {
		for _, v := range plane {
			if v < 128-grayTolerance || v > 128+grayTolerance {
				return nil, 0, false
			}
		}
	}
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	header := "P5 " + strconv.Itoa(w) + " " + strconv.Itoa(h) + " 255\n"
	pgm = make([]byte, 0, len(header)+w*h)
	pgm = append(pgm, header...)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		i := m.YOffset(b.Min.X, y)
		pgm = append(pgm, m.Y[i:i+w]...)
	}
	return pgm, jfifDPI(data), true
}

// jpegFrame returns the marker of the first frame header (SOFn) of a
// JPEG, or 0 when none comes before its first scan or the data ends.
func jpegFrame(data []byte) byte {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return 0
	}
	for i := 2; i+1 < len(data); {
		if data[i] != 0xFF {
			return 0
		}
		m := data[i+1]
		switch {
		case m == 0xFF: // fill byte
			i++
			continue
		case m == 0x01 || m >= 0xD0 && m <= 0xD7: // no length
			i += 2
			continue
		case m == 0xDA || m == 0xD9: // a scan or the end before any frame
			return 0
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			return m
		}
		if i+3 >= len(data) {
			return 0
		}
		i += 2 + int(binary.BigEndian.Uint16(data[i+2:]))
	}
	return 0
}

// jfifDPI returns the resolution in dots per inch that the JFIF header of
// a JPEG gives, or 0 when it gives none (no header, an aspect ratio only,
// or unequal or implausible densities).
func jfifDPI(data []byte) int {
	// SOI, then APP0: length, "JFIF\x00", version (2), units (1),
	// densities (2 and 2).
	if len(data) < 18 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF || data[3] != 0xE0 || string(data[6:11]) != "JFIF\x00" {
		return 0
	}
	units := data[13]
	x, y := int(binary.BigEndian.Uint16(data[14:])), int(binary.BigEndian.Uint16(data[16:]))
	if x != y {
		return 0
	}
	switch units {
	case 1: // per inch
	case 2: // per centimetre
		x = (x*254 + 50) / 100
	default:
		return 0
	}
	if x < 50 || x > 2400 {
		return 0
	}
	return x
}
