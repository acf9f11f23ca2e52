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
	for m := Msg(1); m <= Last; m++ {
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
	if len(catalogue) != int(Last) {
		t.Errorf("catalogue has %d entries, the ids %d", len(catalogue), Last)
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

// TestPlurals: a count of one takes the singular in English; Chinese has one form, with its
// measure word, for every count.
func TestPlurals(t *testing.T) {
	for _, c := range []struct {
		l    Locale
		m    Msg
		n    int
		want string
	}{
		{English, HintCharsMin, 1, "at least 1 character"},
		{English, HintCharsMin, 0, "at least 0 characters"},
		{English, HintCharsMin, 2, "at least 2 characters"},
		{English, HintCharsMax, 1, "up to 1 character"},
		{English, HintCharsMax, 10, "up to 10 characters"},
		{Chinese, HintCharsMin, 1, "至少 1 个字符"},
		{Chinese, HintCharsMin, 2, "至少 2 个字符"},
		{Chinese, HintCharsMax, 1, "最多 1 个字符"},
	} {
		if got := c.l.T(c.m, c.n); got != c.want {
			t.Errorf("%s %d: got %q, want %q", c.l.Tag(), c.n, got, c.want)
		}
	}
	// Each "one" form takes the same arguments as the message it stands for.
	for m, forms := range ones {
		want := verb.FindAllString(catalogue[m][English], -1)
		for _, l := range All {
			if forms[l] != "" && !slices.Equal(verb.FindAllString(forms[l], -1), want) {
				t.Errorf("message %d: the %s one form takes other arguments", m, l.Tag())
			}
		}
	}
}

func TestErrorByCode(t *testing.T) {
	if got := Chinese.Error("no_session", "no such session: it may have been deleted, or the link is wrong"); got != Chinese.T(ErrNoSession) {
		t.Errorf("a known code in Chinese: %q", got)
	}
	if got := English.Error("no_session", "no such session: x"); got != "no such session: x" {
		t.Errorf("English keeps the server's words: %q", got)
	}
	if got := Chinese.Error("something_new", "the server's words"); got != "the server's words" {
		t.Errorf("an unknown code keeps the server's words: %q", got)
	}
	if got := English.T(WaitsForYou, 1); got != "1 decision waits for you" {
		t.Errorf("one: %q", got)
	}
	if got := Chinese.T(DaysAgo, 1); got != "1 天前" {
		t.Errorf("Chinese one: %q", got)
	}
}
