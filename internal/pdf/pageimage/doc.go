// Package pageimage reads the picture of a scanned page for an OCR engine:
// Read hands on, page by page, the one image a page draws, decoded (DCT
// passed through; Flate, LZW, run-length or plain samples decoded to grey;
// CCITT fax and JBIG2 images, through internal/jbig2, to black and white;
// JPEG 2000, through internal/jpx, to grey), or the page rendered by
// pdftoppm when it draws something else.
//
// It reads the file through package pdf's Objects: pdf opens the file as
// text extraction does (its audit of the cross-reference, its repairs of
// pdfcpu's reading, its page tree), scans a page's content within the
// page's budgets (Objects.Drawn) and decodes streams within the document's
// budget of decoded bytes, which the decoders here spend too. The cut is
// there because opening a file and reading content streams are the text
// layer's own work, which this package uses as it is and does not repeat;
// what it adds, the image decoders and their limits, is what text
// extraction never needs. Package pdf knows nothing of this one: the
// import runs one way, and pdf's exported surface for it is that one type.
package pageimage
