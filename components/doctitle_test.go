package components

import "testing"

func TestDocumentTitle(t *testing.T) {
	for _, tc := range []struct {
		page    string
		waiting int
		want    string
	}{
		{"", 0, "Parley"},
		{"Deploy planning", 0, "Deploy planning · Parley"},
		{"Deploy planning", 2, "(2) Deploy planning · Parley"},
		{"", 1, "(1) Parley"},
	} {
		if got := documentTitle(tc.page, tc.waiting); got != tc.want {
			t.Errorf("documentTitle(%q, %d) = %q, want %q", tc.page, tc.waiting, got, tc.want)
		}
	}
}
