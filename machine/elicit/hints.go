package elicit

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"parley/i18n"
)

// Hint is what a field says it takes before the person types: its range, its format, its
// length, in locale l; "" when it takes anything. The view shows it under the title and
// points the control's aria-describedby at it.
func Hint(fd Field, l i18n.Locale) string {
	var parts []string
	add := func(part string) {
		if part != "" {
			parts = append(parts, part)
		}
	}
	switch fd.Kind {
	case Number, Integer:
		// Any lower end of a number says something: no value meets -Inf.
		add(rangeHint(l, numberRange, fd.Min, fd.Max, math.Inf(-1)))
		if fd.Kind == Integer {
			parts = append(parts, l.T(i18n.HintWhole))
		} else if len(parts) == 0 {
			parts = append(parts, l.T(i18n.HintNumber))
		}
	case Email:
		parts = append(parts, l.T(i18n.HintEmail))
	case URI:
		parts = append(parts, l.T(i18n.HintURL))
	case Multi:
		if fd.MinItems != nil && fd.MaxItems != nil && *fd.MinItems == *fd.MaxItems {
			parts = append(parts, l.T(i18n.HintPicksExact, *fd.MinItems))
		} else {
			add(rangeHint(l, picksRange, fd.MinItems, fd.MaxItems, 1))
		}
		if len(parts) == 0 && fd.Required {
			// A required group of checkboxes cannot say so itself (a group takes no
			// aria-required), and its first pick is its answer: the hint says it, for the eye
			// and, through aria-describedby, for a screen reader.
			parts = append(parts, l.T(i18n.HintPicksMin, 1))
		}
	}
	if fd.Kind.typed() && fd.Kind != Number && fd.Kind != Integer {
		add(rangeHint(l, charsRange, fd.MinLength, fd.MaxLength, 0))
	}
	return strings.Join(parts, l.T(i18n.HintSep))
}

// rangeWords are the messages of a range whose ends may be missing: both ends, the lower
// alone, the upper alone.
type rangeWords struct{ both, atLeast, atMost i18n.Msg }

var (
	numberRange = rangeWords{i18n.HintRange, i18n.HintAtLeast, i18n.HintAtMost}
	picksRange  = rangeWords{i18n.HintPicks, i18n.HintPicksMin, i18n.HintPicksMax}
	charsRange  = rangeWords{i18n.HintChars, i18n.HintCharsMin, i18n.HintCharsMax}
)

// rangeHint says the range from lo to hi (either nil when the schema sets no such end) in
// l: both ends when both are set, else the lower end when it is above floor (a least every
// answer meets, such as one pick or no characters, says nothing), else the upper end; ""
// when no end says anything. A number's range, a choice count's and a length's all follow
// these rules, so they are written once.
func rangeHint[T int | float64](l i18n.Locale, w rangeWords, lo, hi *T, floor T) string {
	switch {
	case lo != nil && hi != nil:
		return l.T(w.both, hintArg(*lo), hintArg(*hi))
	case lo != nil && *lo > floor:
		return l.T(w.atLeast, hintArg(*lo))
	case hi != nil:
		return l.T(w.atMost, hintArg(*hi))
	}
	return ""
}

// hintArg is an end as its message takes it: a number as its shortest text (the words
// say %s, so 0.5 stays 0.5), a count as the int the words' %d takes.
func hintArg[T int | float64](x T) any {
	if f, ok := any(x).(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return x
}

// Count is a text field's length against its maxLength as the person types, for the counter
// under the field: from 80% of the limit it shows "185 / 200", over once past it; below that,
// or with no limit, "". Characters are code points, as the check counts them. said is what
// the field's polite status says: the count in tenths of the limit ("160 / 200", then
// "180 / 200"), and every count once past it, so a screen reader is not told each key
// (QA round 17 #3: a limit was only checked on Send).
func Count(fd Field, text string) (shown, said string, over bool) {
	if fd.MaxLength == nil || *fd.MaxLength <= 0 || !fd.Kind.typed() || fd.Kind == Number || fd.Kind == Integer {
		return "", "", false
	}
	limit, n := *fd.MaxLength, utf8.RuneCountInString(text)
	if n*5 < limit*4 {
		return "", "", false
	}
	of := " / " + strconv.Itoa(limit)
	shown, over = strconv.Itoa(n)+of, n > limit
	if over {
		return shown, shown, true
	}
	step := max(limit/10, 1)
	return shown, strconv.Itoa(n/step*step) + of, false
}
