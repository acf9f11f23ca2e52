package server

import (
	"slices"
	"testing"

	"parley/i18n"
)

// TestAcceptLanguages: the header's tags by weight, refused ones left out, and the locale a
// pre-render picks from them.
func TestAcceptLanguages(t *testing.T) {
	for _, tt := range []struct {
		header string
		tags   []string
		want   i18n.Locale
	}{
		{"", []string{}, i18n.English},
		{"zh-CN,zh;q=0.9,en;q=0.8", []string{"zh-CN", "zh", "en"}, i18n.Chinese},
		{"en-US,en;q=0.9,zh-CN;q=0.8", []string{"en-US", "en", "zh-CN"}, i18n.English},
		{"en;q=0.5, zh-Hans;q=0.7", []string{"zh-Hans", "en"}, i18n.Chinese},
		{"zh-TW,fr;q=0.9", []string{"zh-TW", "fr"}, i18n.English},
		{"zh-CN;q=0,en", []string{"en"}, i18n.English},
		{"*, zh;q=0.1", []string{"zh"}, i18n.Chinese},
	} {
		got := acceptLanguages(tt.header)
		if !slices.Equal(got, tt.tags) {
			t.Errorf("%q: %q, want %q", tt.header, got, tt.tags)
		}
		if l := i18n.FromBrowser(got); l != tt.want {
			t.Errorf("%q: %s, want %s", tt.header, l.Tag(), tt.want.Tag())
		}
	}
}
