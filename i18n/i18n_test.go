package i18n

import (
	"regexp"
	"slices"
	"testing"
)

var verb = regexp.MustCompile(`%\[\d+\][a-z]`)

// TestEveryMessageInEveryLocale: no message is missing a locale, and each locale's text takes
// the same arguments, so a switch never shows a hole or a %!(EXTRA).
func TestEveryMessageInEveryLocale(t *testing.T) {
	for m := Msg(1); m <= SteerTitle; m++ {
		texts, ok := catalogue[m]
		if !ok {
			t.Errorf("message %d has no entry", m)
			continue
		}
		want := verb.FindAllString(texts[English], -1)
		slices.Sort(want)
		for _, l := range All {
			if texts[l] == "" {
				t.Errorf("message %d (%q) is empty in %s", m, texts[English], l.Tag())
			}
			got := verb.FindAllString(texts[l], -1)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("message %d: %s takes %v, English %v", m, l.Tag(), got, want)
			}
		}
	}
	if len(catalogue) != int(SteerTitle) {
		t.Errorf("catalogue has %d entries, the ids %d", len(catalogue), SteerTitle)
	}
}

func TestFromBrowser(t *testing.T) {
	for _, tt := range []struct {
		langs []string
		want  Locale
	}{
		{nil, English},
		{[]string{"fr-FR", "de"}, English},
		{[]string{"zh-CN", "en"}, Chinese},
		{[]string{"zh"}, Chinese},
		{[]string{"zh-Hans-CN"}, Chinese},
		{[]string{"zh_SG"}, Chinese},
		{[]string{"zh-TW", "en-US"}, English},
		{[]string{"fr", "zh-cn"}, Chinese},
		{[]string{"en-GB", "zh-CN"}, English},
	} {
		if got := FromBrowser(tt.langs); got != tt.want {
			t.Errorf("FromBrowser(%v) = %s, want %s", tt.langs, got.Tag(), tt.want.Tag())
		}
	}
}

func TestT(t *testing.T) {
	if got := Chinese.T(DecisionsWaitingMany, 3); got != "3 个决定待处理" {
		t.Errorf("got %q", got)
	}
	if got := English.T(HintRange, "1", "5"); got != "1–5" {
		t.Errorf("got %q", got)
	}
	if got := Locale(7).T(Send); got != "Send" {
		t.Errorf("an unknown locale is English: got %q", got)
	}
	if got := English.T(Msg(100000)); got != "!(100000)" {
		t.Errorf("an unknown message shows its id: got %q", got)
	}
}
