// Package i18n is Parley's catalogue of user-visible strings, in English and Chinese
// (Simplified) (docs/i18n.md). A view asks a Locale for a message by its id; the message is
// a fmt format whose arguments are numbered (%[1]s), so a locale may order them its own way.
//
// The package is pure: no browser, no clock. Which locale a page shows is the view's state
// (app/locale); everything here is data.
package i18n

import (
	"fmt"
	"strings"
)

// Locale is one of the shipped locales.
type Locale int

const (
	// English is the default, and what a browser asking for anything else gets.
	English Locale = iota
	// Chinese is Chinese (Simplified).
	Chinese
	nLocales
)

// All lists the shipped locales, in the order a switch offers them.
var All = [...]Locale{English, Chinese}

var tags = [nLocales]string{"en", "zh-Hans"}

// names are each locale's name in itself, as a switch shows it.
var names = [nLocales]string{"English", "简体中文"}

// Tag is the locale's BCP 47 tag, for the lang attribute.
func (l Locale) Tag() string {
	if l < 0 || l >= nLocales {
		return tags[English]
	}
	return tags[l]
}

// Name is the locale's name in its own language.
func (l Locale) Name() string {
	if l < 0 || l >= nLocales {
		return names[English]
	}
	return names[l]
}

// Parse reads a tag a browser or a stored choice names: "zh", "zh-CN", "zh-Hans-CN" and
// "zh-SG" are Chinese (Simplified); Traditional ("zh-TW", "zh-Hant") is not shipped and so is
// not matched; "en…" is English.
func Parse(tag string) (Locale, bool) {
	t := strings.ToLower(strings.ReplaceAll(tag, "_", "-"))
	switch {
	case t == "en" || strings.HasPrefix(t, "en-"):
		return English, true
	case t == "zh" || t == "zh-hans" || strings.HasPrefix(t, "zh-hans-") || t == "zh-cn" || t == "zh-sg":
		return Chinese, true
	}
	return English, false
}

// FromBrowser picks the first shipped locale of the browser's preferred languages
// (navigator.languages), or English.
func FromBrowser(langs []string) Locale {
	for _, l := range langs {
		if loc, ok := Parse(l); ok {
			return loc
		}
	}
	return English
}

// T returns message m in locale l, formatted with args. An unknown message returns its id,
// visibly wrong rather than empty.
func (l Locale) T(m Msg, args ...any) string {
	if l < 0 || l >= nLocales {
		l = English
	}
	s, ok := catalogue[m]
	if !ok {
		return fmt.Sprintf("!(%d)", int(m))
	}
	f := s[l]
	if o, ok := ones[m]; ok && o[l] != "" && countIsOne(args) {
		f = o[l]
	}
	if len(args) == 0 {
		return f
	}
	return fmt.Sprintf(f, args...)
}

// Plurals. English has two forms, one and other ("1 character", "2 characters"); Chinese has
// one form, with a measure word ("1 个字符", "2 个字符"). A message whose words change with a
// count has its "one" form in ones, for the locales that have it; its count is its first
// argument. T picks the form, so a caller passes the number and never builds a plural.
var ones = map[Msg][nLocales]string{
	HintCharsMin: {"at least %[1]d character", ""},
	HintCharsMax: {"up to %[1]d character", ""},
	ValCharsMin:  {"must be at least %[1]s character", ""}, // a schema check's (more_words.go)
	ValCharsMax:  {"must be at most %[1]s character", ""},
	MenuShown:    {"%[1]d suggestion", ""},
}

// countIsOne says whether a message's count (its first argument) is one.
func countIsOne(args []any) bool {
	if len(args) == 0 {
		return false
	}
	switch n := args[0].(type) {
	case int:
		return n == 1
	case int64:
		return n == 1
	case uint64:
		return n == 1
	case string: // a phrase's argument
		return n == "1"
	}
	return false
}
