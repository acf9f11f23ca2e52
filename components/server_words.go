package components

import (
	"strings"

	"parley/app/locale"
	"parley/app/store"
	"parley/i18n"
	"parley/protocol"
)

// The server's fixed words, by their phrases, in the page's locale (docs/i18n.md): what the
// approval gate asks and offers, how an "always" ended, a grant's reach.

// worded is a decision's entry with its request (and the title it gave) in the page's words.
func worded(m store.Message) store.Message {
	if m.Request == nil {
		return m
	}
	r := locale.Current().Request(*m.Request)
	if m.Title == m.Request.Message {
		m.Title = r.Message
	}
	m.Request = &r
	return m
}

// asked is what a request asks, in the page's words.
func asked(req protocol.DecisionRequest) string { return locale.Current().Say(req.Phrase, req.Message) }

// reachOf is the reach of the "always" option of req whose English is english, in the page's
// words ("" when no option has it).
func reachOf(req *protocol.DecisionRequest, english string) string {
	if req == nil {
		return ""
	}
	for _, o := range req.Options {
		if o.Phrase == nil {
			continue
		}
		if en, ok := i18n.English.Reach(*o.Phrase); ok && en == english {
			r, _ := locale.Current().Reach(*o.Phrase)
			return r
		}
	}
	return ""
}

// resultText is how a decision ended, in the page's words: an "always" by its option's reach.
func resultText(m store.Message) string {
	if m.ResultPhrase != nil {
		return locale.Current().Say(m.ResultPhrase, m.Result)
	}
	if rest, ok := strings.CutPrefix(m.Result, "Approved, "); ok {
		if r := reachOf(m.Request, rest); r != "" {
			return tr(i18n.OutcomeApprovedWith, r)
		}
	}
	return outcomeText(m.Result)
}

// answerWords is a history entry's answer, in the page's words where it is an "always" reach.
func answerWords(h protocol.HistoryEntry) string {
	if h.AnswerPhrase != nil {
		return locale.Current().Say(h.AnswerPhrase, h.Answer)
	}
	if r := reachOf(&h.Request, h.Answer); r != "" {
		return r
	}
	return h.Answer
}

// scopeWords is a grant's reach in the page's words (protocol.DescribeScope in English).
func scopeWords(s protocol.GrantScope) string { return locale.Current().Scope(s) }
