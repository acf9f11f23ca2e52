//go:build wasm

package main

// serve is the server; in the browser there is none.
func serve() {}
