package i18n

// Parley writes a few messages into a session's log in fixed words of its own: the offline
// agent's reply, the note on a turn a restart interrupted. The log is shared by every page and
// outlives any one of them, so it holds those words in English with their phrase code and
// arguments beside them (protocol.Phrase), and each page shows them in its own locale
// (docs/i18n.md, "Parley's own messages"). A code is stable: a new wording keeps its code.
var phrases = map[string]Msg{
	PhraseCodeOfflineReply:    PhraseOfflineReply,
	PhraseCodeTurnInterrupted: PhraseTurnInterrupted,
}

// The phrase codes.
const (
	PhraseCodeOfflineReply    = "offline_reply"    // one argument: the prompt's first line
	PhraseCodeTurnInterrupted = "turn_interrupted" // no argument
)

// Phrase is the phrase with code in l, formatted with args; false for a code this catalogue
// does not know (a newer server's), whose message then shows its English text.
func (l Locale) Phrase(code string, args []string) (string, bool) {
	m, ok := phrases[code]
	if !ok {
		return l.serverPhrase(code, args)
	}
	as := make([]any, len(args))
	for i, a := range args {
		as[i] = a
	}
	return l.T(m, as...), true
}
