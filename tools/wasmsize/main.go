// Command wasmsize says what the browser's bundle is made of: web/app.wasm's sizes against
// its budget, then the code of each package, from a build that keeps function names
// (docs/wasm-size.md). Run it from the module root after `make wasm`:
//
//	go run ./tools/wasmsize [-top N] [-funcs N] [-match S]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"parley/internal/wasmsize"
)

func main() {
	top := flag.Int("top", 40, "how many packages to list")
	funcs := flag.Int("funcs", 0, "how many of the largest functions to list too")
	match := flag.String("match", "", "list only the functions whose linker name holds this")
	flag.Parse()
	if s, err := wasmsize.Stat("web"); err == nil {
		fmt.Println(s)
	} else {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
	}
	dir, err := os.MkdirTemp("", "wasmsize-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	b, err := wasmsize.Measure(".", dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
	fmt.Println(b.Table(*top))
	for _, f := range b.Funcs {
		if *funcs <= 0 {
			break
		}
		if strings.Contains(f.Name, *match) {
			fmt.Printf("%9d  %s\n", f.Code, f.Name)
			*funcs--
		}
	}
}
