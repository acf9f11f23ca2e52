package protocol

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ValidationError says what is wrong with a request, field by field, in words a person can act on.
type ValidationError struct {
	Fields map[string]string
	// Phrases name some fields' messages by their catalogue codes (docs/i18n.md).
	Phrases map[string]Phrase
}

func (e *ValidationError) Error() string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(e.Fields)) {
		parts = append(parts, name+": "+e.Fields[name])
	}
	return "invalid request: " + strings.Join(parts, "; ")
}

type fieldErrors map[string]string

func (f fieldErrors) add(field, format string, args ...any) {
	if _, ok := f[field]; !ok {
		f[field] = fmt.Sprintf(format, args...)
	}
}

// say adds a field's message with its phrase code and arguments beside its English text,
// so a page can word it in its locale (i18n/server_words.go holds the same English).
func (f fieldErrors) say(field, code, text string, args ...string) {
	if _, ok := f[field]; !ok {
		f[field] = text
		f[phraseKey+field] = code + phraseSep + strings.Join(args, phraseSep)
	}
}

// A field's phrase rides in the same map under phraseKey+field until err splits it out.
const (
	phraseKey = "\x00"
	phraseSep = "\x1f"
)

func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	e := &ValidationError{Fields: map[string]string{}}
	for k, v := range f {
		field, ok := strings.CutPrefix(k, phraseKey)
		if !ok {
			e.Fields[k] = v
			continue
		}
		parts := strings.Split(v, phraseSep)
		p := Phrase{Code: parts[0]}
		if len(parts) > 1 && (len(parts) > 2 || parts[1] != "") {
			p.Args = parts[1:]
		}
		if e.Phrases == nil {
			e.Phrases = map[string]Phrase{}
		}
		e.Phrases[field] = p
	}
	return e
}

// Validate checks a prompt before it is stored.
func (r SendPromptRequest) Validate() error {
	f := fieldErrors{}
	checkPromptText(f, r.Text, "prompt_empty", "the prompt is empty")
	switch {
	case r.AttemptID == "":
		f.add("attemptId", "missing: every send needs a client attempt id so a retry is stored once")
	case len(r.AttemptID) > MaxAttemptIDBytes:
		f.add("attemptId", "longer than %d bytes", MaxAttemptIDBytes)
	case !isToken(r.AttemptID):
		f.add("attemptId", "use only letters, digits, '-' and '_'")
	}
	switch r.Mode {
	case "", ModeQueue, ModeSteer:
	default:
		f.add("mode", "unknown mode %q: use %q or %q", r.Mode, ModeQueue, ModeSteer)
	}
	return f.err()
}

// Validate checks a session creation request.
func (r CreateSessionRequest) Validate() error {
	f := fieldErrors{}
	if len(r.Title) > 200 {
		f.add("title", "longer than 200 bytes")
	}
	if !utf8.ValidString(r.Title) {
		f.add("title", "not valid UTF-8")
	}
	if i := strings.IndexByte(r.Title, 0); i >= 0 {
		f.add("title", "holds a NUL byte (U+0000) at byte %d: remove it", i)
	}
	return f.err()
}

// ValidSessionID reports whether id has the shape of a session id. Ids become parts of
// log subjects, so only a safe alphabet is accepted.
func ValidSessionID(id string) bool {
	return id != "" && len(id) <= 64 && isToken(id)
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !IDByte(s[i]) {
			return false
		}
	}
	return true
}

// IDByte reports whether c may stand in an id (a session's, an attempt's): a letter, a digit,
// '-' or '_'. A reference to a session in a prompt's text ends at the first other byte.
func IDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// checkPromptText adds to f what is wrong with a prompt's text, if anything: empty (in the
// words given, which say what to do instead), over the limit, not UTF-8, or holding a NUL.
func checkPromptText(f fieldErrors, text, emptyCode, empty string) {
	itoa := strconv.Itoa
	switch {
	case strings.TrimSpace(text) == "":
		f.say("text", emptyCode, empty)
	case len(text) > MaxPromptBytes:
		kb, limit := itoa((len(text)+1023)/1024), itoa(MaxPromptBytes/1024)
		f.say("text", "prompt_too_large", "the prompt is "+kb+" KiB; the limit is "+limit+" KiB", kb, limit)
	case !utf8.ValidString(text):
		f.say("text", "prompt_not_utf8", "the prompt is not valid UTF-8")
	case strings.IndexByte(text, 0) >= 0:
		at := itoa(strings.IndexByte(text, 0))
		f.say("text", "prompt_nul", "the prompt holds a NUL byte (U+0000) at byte "+at+
			": remove it (it often comes with text pasted from a binary file)", at)
	}
}
