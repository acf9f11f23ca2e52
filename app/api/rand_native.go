//go:build !js

package api

import "crypto/rand"

// randomBytes fills b from the system's CSPRNG.
func randomBytes(b []byte) { _, _ = rand.Read(b) }
