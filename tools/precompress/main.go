// Command precompress writes brotli and gzip twins of a file (app.wasm), so the server sends
// the smallest encoding the browser accepts without compressing on every request.
package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/andybalholm/brotli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: precompress FILE   (writes FILE.br and FILE.gz)")
		os.Exit(2)
	}
	name := os.Args[1]
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() {
		errs[0] = write(name, name+".br", func(w io.Writer) io.WriteCloser {
			return brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: 24})
		})
	})
	wg.Go(func() {
		errs[1] = write(name, name+".gz", func(w io.Writer) io.WriteCloser {
			z, _ := gzip.NewWriterLevel(w, gzip.BestCompression)
			return z
		})
	})
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			fmt.Fprintln(os.Stderr, "precompress:", err)
			os.Exit(1)
		}
	}
}

// write compresses src into dst through a temporary file, so a reader never sees half a file.
func write(src, dst string, enc func(io.Writer) io.WriteCloser) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	z := enc(out)
	if _, err := io.Copy(z, in); err != nil {
		out.Close()
		return err
	}
	if err := z.Close(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
