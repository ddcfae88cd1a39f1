// Package samplevault embeds a small, self-contained sample Vault: a
// fictional research thread on sparse attention for long documents, with
// papers (PDFs, metadata, notes, reference sidecars, layout files), a notes
// directory, a plain extensionless file and a cited-by cache. The quickchat
// example and many tests run on it; README.md in this folder lists which file
// demonstrates which feature and which quotes appear on which page.
//
// The PDFs, the layout sidecars of papers/2401.01234 and the PNG files are
// generated from src/ by the program in internal/cmd/samplevaultgen; everything else is written by
// hand.
package samplevault

//go:generate go run ../internal/cmd/samplevaultgen -src src -out vault

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed all:vault
var embedded embed.FS

// FS is the sample vault, rooted at the vault root: its files are named like
// "papers/2401.01234/metadata.json". It includes the private .agentero folder
// and hidden files, which the SDK must never list.
var FS fs.FS = mustSub(embedded, "vault")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		// fs.Sub fails only for an invalid path, and "vault" is valid.
		panic(err)
	}
	return sub
}

// ErrNotEmpty is returned by Extract when the target folder already holds
// files, so that a sample vault is never mixed into a real one.
var ErrNotEmpty = errors.New("samplevault: target folder is not empty")

// Extract writes the sample vault into dir, preserving its layout. dir must
// be a new path or an existing empty folder. Folders are created 0755 and
// files 0644.
func Extract(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("samplevault: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("samplevault: %w", err)
	}
	if len(entries) > 0 {
		return ErrNotEmpty
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("samplevault: %w", err)
	}
	defer root.Close()
	err = fs.WalkDir(FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name == "." {
			return nil
		}
		if d.IsDir() {
			return root.Mkdir(filepath.FromSlash(name), 0o755)
		}
		data, err := fs.ReadFile(FS, name)
		if err != nil {
			return err
		}
		return root.WriteFile(filepath.FromSlash(name), data, 0o644)
	})
	if err != nil {
		return fmt.Errorf("samplevault: extract: %w", err)
	}
	return nil
}
