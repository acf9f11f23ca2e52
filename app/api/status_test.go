package api

import (
	"net/http"
	"testing"
)

func TestStatusText(t *testing.T) {
	for code := range 1000 {
		if got, want := statusText(code), http.StatusText(code); got != want {
			t.Errorf("statusText(%d) = %q, want %q", code, got, want)
		}
	}
}
