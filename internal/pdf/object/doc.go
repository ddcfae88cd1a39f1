// Package object reads the objects of a PDF file: it audits the file's
// cross-reference sections against what the file's size can back
// (AuditXRef, AuditTable), reads objects lazily from a file held in memory
// (Lazy), or through pdfcpu's table of a file it parsed whole (Table), and
// decodes streams within MaxStreamBytes (DecodeStream). Repairs of a broken
// table or of encryption that pdfcpu refuses (RebuildXRef,
// RepairEncryption, RepairCipherBlocks, RepairCryptFilters) each return an
// incremental update to append to the file, or nil. The Lexer splits
// decoded content streams, and the object syntax they share, into tokens.
//
// Every step has a limit (MaxObjects, MaxObjectNesting, MaxStreamBytes and
// the file's size), and exceeding one is a *LimitError: hostile files are
// expected.
package object
