package slash

import (
	"strings"

	"parley/machine/utf16x"
)

// ArgTrigger is the trigger of a command's argument: the hit of a caret in the first word
// after "/name ", and the trigger of the sources that complete it. Such a source is named
// after its command (SourceKey{ArgTrigger, "example"} completes "/example <slug>"), so a
// command declares an argument source by registering one under its name.
const ArgTrigger = ' '

// DetectArgument finds the argument hit: the draft is "/name " then the caret in the first
// word after it (possibly empty). The hit's Command names the command, its Query is the
// word up to the caret, and its Span the whole word, so a pick replaces it. Only the first
// argument is completed; the rest of a command's arguments are the person's.
func DetectArgument(draft string, caret int, tier Tier) (Hit, bool) {
	if tier == Frozen || caret < 0 || !strings.HasPrefix(draft, "/") {
		return Hit{}, false
	}
	b, caret := utf16x.ByteOffset(draft, caret)
	name := nameEnd(draft, 1)
	if name == 1 || name >= len(draft) || draft[name] != ' ' {
		return Hit{}, false
	}
	start := name + 1
	if b < start || strings.ContainsAny(draft[start:b], " \t\r\n") {
		return Hit{}, false
	}
	end := b
	if i := strings.IndexAny(draft[b:], " \t\r\n"); i >= 0 {
		end = b + i
	} else {
		end = len(draft)
	}
	return Hit{
		Trigger: ArgTrigger,
		Command: draft[1:name],
		Query:   draft[start:b],
		Span:    spanOf(caret, utf16x.Len(draft[start:b]), utf16x.Len(draft[b:end])),
	}, true
}
