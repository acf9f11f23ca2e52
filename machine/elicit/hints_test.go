package elicit

import (
	"testing"

	"parley/i18n"
)

func TestHint(t *testing.T) {
	for _, tt := range []struct {
		schema string
		want   string
		zh     string
	}{
		{sInteger, "1–10 · a whole number", "1–10 · 整数"},
		{`{"type":"integer","minimum":1,"maximum":5}`, "1–5 · a whole number", "1–5 · 整数"},
		{sNumber, "0.5–9.5", "0.5–9.5"},
		{`{"type":"number"}`, "a number", "数字"},
		{`{"type":"number","minimum":0}`, "at least 0", "至少 0"},
		{`{"type":"integer","maximum":3}`, "at most 3 · a whole number", "至多 3 · 整数"},
		{sShort, "3–5 characters", "3–5 个字符"},
		{`{"type":"string","maxLength":80}`, "up to 80 characters", "最多 80 个字符"},
		{sEmail, "an email address, name@example.com", "电子邮件地址，如 name@example.com"},
		{sURI, "a link, https://…", "链接，如 https://…"},
		{sMulti, "pick 2", "选 2 项"},
		{sText, "", ""},
		{sEnum, "", ""},
		{sDate, "", ""},
	} {
		fd := New(askReq(tt.schema), DefaultOptions()).Fields()[0]
		if got := Hint(fd, i18n.English); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.schema, got, tt.want)
		}
		if got := Hint(fd, i18n.Chinese); got != tt.zh {
			t.Errorf("%s in Chinese: got %q, want %q", tt.schema, got, tt.zh)
		}
	}
}
