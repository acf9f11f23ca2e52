//go:build !wasm && !unix

package main

// lockData does nothing where flock is not available; run one Parley per data folder.
func lockData(string) (func(), error) { return func() {}, nil }
