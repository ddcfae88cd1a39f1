package safefs

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
)

// ErrCorrupt reports a sealed file whose checksum does not match its
// content: torn by a crash, damaged, or not written by WriteSealed.
var ErrCorrupt = errors.New("checksum mismatch")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sealLen is the length of the checksum WriteSealed appends.
const sealLen = 4

// WriteSealed writes data followed by its CRC-32C (Castagnoli, 4 bytes,
// little-endian), atomically as WriteFile does. It is the format of the
// SDK's whole-file caches: a torn or damaged file is detected on reading
// and rebuilt, never trusted. The checksum detects accidents, not forgery:
// the caches live in the private folder and hold what the Vault already
// allows.
func (d *Dir) WriteSealed(name string, data []byte) error {
	sum := binary.LittleEndian.AppendUint32(nil, crc32.Checksum(data, castagnoli))
	return d.write(name, data, sum)
}

// WriteSealedFunc is WriteSealed for data that write writes to w, in as
// many pieces as it likes, so that a large file is not held in memory
// whole: the checksum is computed as the pieces pass. An error from write
// leaves no file.
func (d *Dir) WriteSealedFunc(name string, write func(w io.Writer) error) error {
	return d.writeFunc(name, func(f io.Writer) error {
		sw := &sumWriter{w: bufio.NewWriterSize(f, 256<<10)}
		if err := write(sw); err != nil {
			return err
		}
		if sw.err != nil {
			return sw.err
		}
		bw := sw.w.(*bufio.Writer)
		if _, err := bw.Write(binary.LittleEndian.AppendUint32(nil, sw.sum)); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// sumWriter passes bytes to w and keeps their CRC-32C.
type sumWriter struct {
	w   io.Writer
	sum uint32
	err error
}

func (s *sumWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.sum = crc32.Update(s.sum, castagnoli, p[:n])
	s.err = err
	return n, err
}

// Seal appends to b the checksum WriteSealed writes after its data, for a
// format that is written through another writer.
func Seal(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// ReadSealed reads a file written by WriteSealed, of at most max bytes
// (DefaultMax when max <= 0), and returns its data without the checksum. A
// file whose checksum does not match is ErrCorrupt.
func (d *Dir) ReadSealed(name string, max int64) ([]byte, error) {
	b, err := d.ReadFile(name, max)
	if err != nil {
		return nil, err
	}
	data, ok := Unseal(b)
	if !ok {
		rel, _ := cleanOwned(name)
		return nil, &fs.PathError{Op: "read", Path: d.path(rel), Err: ErrCorrupt}
	}
	return data, nil
}

// Unseal checks the checksum WriteSealed appended to b and returns the data
// before it.
func Unseal(b []byte) ([]byte, bool) {
	if len(b) < sealLen {
		return nil, false
	}
	data, sum := b[:len(b)-sealLen], binary.LittleEndian.Uint32(b[len(b)-sealLen:])
	return data, crc32.Checksum(data, castagnoli) == sum
}
