package components

import (
	"regexp"
	"testing"
)

// The browser routes sessions with isSessionPath, the server with sessionPattern: they must
// agree on every path, or a page the server pre-renders as a session mounts as "not found"
// in the browser (or the other way round).
func TestSessionPathMatchesThePattern(t *testing.T) {
	re := regexp.MustCompile(sessionPattern)
	for _, p := range []string{
		"/s/abc", "/s/A-b_9", "/s/", "/s", "/", "", "/s/abc/", "/s/abc/def", "/s/a b", "/s/a.b",
		"/s/é", "/S/abc", "//s/abc", "/s/abc\n", "/s/\x00", "/s/-", "/s/_", "/approvals", "x/s/abc",
	} {
		if got, want := isSessionPath(p), re.MatchString(p); got != want {
			t.Errorf("isSessionPath(%q) = %v, the pattern says %v", p, got, want)
		}
	}
}

func FuzzSessionPathMatchesThePattern(f *testing.F) {
	re := regexp.MustCompile(sessionPattern)
	for _, p := range []string{"/s/abc", "/s/", "/s/a/b", "/s/a\n", "/s/Z-_0"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if got, want := isSessionPath(p), re.MatchString(p); got != want {
			t.Fatalf("isSessionPath(%q) = %v, the pattern says %v", p, got, want)
		}
	})
}
