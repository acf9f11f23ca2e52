//go:build !js

package elicitation

// Expose does nothing outside the browser.
func Expose() {}
