package server

// Patterns lists the patterns of every route behind the token, so that the external tests
// can hold each one to its rules and notice a route added without a test.
func Patterns() []string {
	var out []string
	for _, r := range (&Server{}).api() {
		out = append(out, r.pattern)
	}
	return out
}
