package components

import (
	"strings"

	"parley/i18n"
)

// The thread's store words an outcome once, in English, as it folds the log (app/store). The
// views say those fixed words in the page's locale: an exact phrase, or a phrase with the
// person's own words after it ("Rejected: use staging"). Anything else (an option's label, a
// form's answers, a script's output) is shown as it is.
var outcomePhrases = map[string]i18n.Msg{
	"Approved":                         i18n.OutcomeApproved,
	"Yes":                              i18n.Yes, // a confirm's own words, when it has none of its own
	"No":                               i18n.No,
	"Declined":                         i18n.OutcomeDeclined,
	"Rejected":                         i18n.OutcomeRejected,
	"Answered":                         i18n.OutcomeAnswered,
	"Answered, every field left empty": i18n.OutcomeAnsweredEmpty,
	"Withdrawn: the question is no longer needed": i18n.OutcomeWithdrawn,
	"No answer in time":                           i18n.OutcomeNoAnswerInTime,
	"Stopped":                                     i18n.OutcomeStoppedShort,
	"Ended: the server restarted before it was answered": i18n.OutcomeEndedRestart,
	"Stopped by you": i18n.OutcomeStopped,
	"Interrupted: the server stopped before it finished":  i18n.OutcomeInterrupted,
	"No result: the turn ended before this call finished": i18n.OutcomeNoResult,
}

var outcomePrefixes = []struct {
	prefix string
	msg    i18n.Msg
}{
	{"Approved, ", i18n.OutcomeApprovedWith},
	{"Rejected: ", i18n.OutcomeRejectedWith},
	{"Declined: ", i18n.OutcomeDeclinedWith},
}

// outcomeText is an outcome the store worded, in the page's locale.
func outcomeText(s string) string {
	if m, ok := outcomePhrases[s]; ok {
		return tr(m)
	}
	for _, p := range outcomePrefixes {
		if rest, ok := strings.CutPrefix(s, p.prefix); ok {
			return tr(p.msg, rest)
		}
	}
	return s
}
