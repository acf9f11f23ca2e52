package elicit

import (
	"strconv"
	"strings"

	"parley/i18n"
)

// Hint is what a field says it takes before the person types: its range, its format, its
// length, in locale l; "" when it takes anything. The view shows it under the title and
// points the control's aria-describedby at it.
func Hint(fd Field, l i18n.Locale) string {
	var parts []string
	num := func(x *float64) string { return strconv.FormatFloat(*x, 'f', -1, 64) }
	switch fd.Kind {
	case Number, Integer:
		switch {
		case fd.Min != nil && fd.Max != nil:
			parts = append(parts, l.T(i18n.HintRange, num(fd.Min), num(fd.Max)))
		case fd.Min != nil:
			parts = append(parts, l.T(i18n.HintAtLeast, num(fd.Min)))
		case fd.Max != nil:
			parts = append(parts, l.T(i18n.HintAtMost, num(fd.Max)))
		}
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
		switch {
		case fd.MinItems != nil && fd.MaxItems != nil && *fd.MinItems == *fd.MaxItems:
			parts = append(parts, l.T(i18n.HintPicksExact, *fd.MinItems))
		case fd.MinItems != nil && fd.MaxItems != nil:
			parts = append(parts, l.T(i18n.HintPicks, *fd.MinItems, *fd.MaxItems))
		case fd.MinItems != nil && *fd.MinItems > 1:
			parts = append(parts, l.T(i18n.HintPicksMin, *fd.MinItems))
		case fd.MaxItems != nil:
			parts = append(parts, l.T(i18n.HintPicksMax, *fd.MaxItems))
		}
	}
	if fd.Kind.typed() && fd.Kind != Number && fd.Kind != Integer {
		switch {
		case fd.MinLength != nil && fd.MaxLength != nil:
			parts = append(parts, l.T(i18n.HintChars, *fd.MinLength, *fd.MaxLength))
		case fd.MinLength != nil && *fd.MinLength > 0:
			parts = append(parts, l.T(i18n.HintCharsMin, *fd.MinLength))
		case fd.MaxLength != nil:
			parts = append(parts, l.T(i18n.HintCharsMax, *fd.MaxLength))
		}
	}
	return strings.Join(parts, l.T(i18n.HintSep))
}
