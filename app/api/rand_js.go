//go:build js

package api

import "syscall/js"

// randomBytes fills b from the browser's CSPRNG. crypto/rand would do the same, but it links
// the FIPS DRBG with AES and SHA-2/3 into the wasm (docs/wasm-size.md).
func randomBytes(b []byte) {
	buf := js.Global().Get("Uint8Array").New(len(b))
	js.Global().Get("crypto").Call("getRandomValues", buf)
	js.CopyBytesToGo(b, buf)
}
