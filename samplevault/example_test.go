package samplevault_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"

	"github.com/researchctx/researchctx/samplevault"
)

func ExampleExtract() {
	dir, err := os.MkdirTemp("", "samplevault")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := samplevault.Extract(dir); err != nil {
		log.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "reading-list"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	fmt.Println(sc.Text())
	// Output: Reading list (plain text, no extension)
}

func ExampleFS() {
	entries, err := fs.ReadDir(samplevault.FS, "papers/vision")
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Println(e.Name(), e.IsDir())
	}
	// Output:
	// NOTES.md false
	// patch-tokens true
	// resnet-like true
}
