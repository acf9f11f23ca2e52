package components

import (
	"strings"

	"parley/i18n"
)

// phrases words the store's fixed English in the page's locale: an exact phrase, or a
// phrase with words of their own after it (a person's reason, a workspace's name). Anything
// else is shown as it is. Outcomes and run titles are two such tables.
type phrases struct {
	exact  map[string]i18n.Msg
	prefix []struct {
		prefix string
		msg    i18n.Msg // with %[1]s: what follows the prefix
	}
}

// say is s in the page's locale.
func (p *phrases) say(s string) string {
	if m, ok := p.exact[s]; ok {
		return tr(m)
	}
	for _, k := range p.prefix {
		if rest, ok := strings.CutPrefix(s, k.prefix); ok {
			return tr(k.msg, rest)
		}
	}
	return s
}

// The thread's store words an outcome once, in English, as it folds the log (app/store). The
// views say those fixed words in the page's locale: an exact phrase, or a phrase with the
// person's own words after it ("Rejected: use staging"). Anything else (an option's label, a
// form's answers, a script's output) is shown as it is.
var outcomePhrases = phrases{
	exact: map[string]i18n.Msg{
		"Approved":                         i18n.OutcomeApproved,
		"Yes":                              i18n.Yes, // a confirm's own words, when it has none of its own
		"No":                               i18n.No,
		"Declined":                         i18n.OutcomeDeclined,
		"Rejected":                         i18n.OutcomeRejected,
		"Answered":                         i18n.OutcomeAnswered,
		"Answered, every field left empty": i18n.OutcomeAnsweredEmpty,
		"Withdrawn: the question is no longer needed":         i18n.OutcomeWithdrawn,
		"No answer in time":                                   i18n.OutcomeNoAnswerInTime,
		"Ended: the server restarted before it was answered":  i18n.OutcomeEndedRestart,
		"Stopped by you":                                      i18n.OutcomeStopped,
		"Interrupted: the server stopped before it finished":  i18n.OutcomeInterrupted,
		"No result: the turn ended before this call finished": i18n.OutcomeNoResult,
	},
	prefix: []struct {
		prefix string
		msg    i18n.Msg
	}{
		{"Approved, ", i18n.OutcomeApprovedWith},
		{"Rejected: ", i18n.OutcomeRejectedWith},
		{"Declined: ", i18n.OutcomeDeclinedWith},
	},
}

// outcomeText is an outcome the store worded, in the page's locale.
func outcomeText(s string) string { return outcomePhrases.say(s) }

// runTitles are a run card's titles as the store words them in English ("Script", "Example
// hello", "Function Greet someone (…)"): the kind is Parley's word, the name the workspace's.
var runTitles = phrases{
	exact: map[string]i18n.Msg{"Script": i18n.RunScript},
	prefix: []struct {
		prefix string
		msg    i18n.Msg
	}{{"Example ", i18n.RunExample}, {"Function ", i18n.RunFunctionTitle}},
}

// runTitle is a run card's title in the page's locale.
func runTitle(title string) string { return runTitles.say(title) }
