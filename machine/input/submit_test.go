package input

import (
	"context"
	"testing"
)

// TestSerializers: the model projection is made per chip by its source's serializer at
// submit; a failure, a cancel or a missing owner sends nothing, never the chip's label or
// clipboard text (TestDriftGuard crosses each with the drift cases).
func TestSerializers(t *testing.T) {
	ra, rb := ref("a.go"), ref("b.go")
	id := attemptID(1)
	runTable(t, []tcase{
		{name: "one Serialize per chip", start: "look at ￼ and ￼", refs: []Reference{ra, rb}, steps: steps(toSubmitting),
			want: "|", phase: Submitting,
			effects: []Effect{Serialize{Attempt: id, ID: 1, Source: "@file", Ref: "a.go"}, Serialize{Attempt: id, ID: 2, Source: "@file", Ref: "b.go"}}},
		{name: "all serialized: the model projection is sent", start: "look at ￼ and ￼", refs: []Reference{ra, rb},
			steps: steps(toSubmitting, Serialized{Attempt: id, ID: 2, Text: "<file b>"}, Serialized{Attempt: id, ID: 1, Text: "<file a>"}),
			want:  "|", phase: Submitting, effects: []Effect{DefaultSink{Attempt: id, Text: "look at <file a> and <file b>"}}},
		{name: "a chip is a word of its own: letters beside it are kept apart, punctuation is not", start: "at￼and ￼, ok", refs: []Reference{ra, rb},
			steps: steps(toSubmitting, Serialized{Attempt: id, ID: 1, Text: "@a.go"}, Serialized{Attempt: id, ID: 2, Text: "@b.go"}),
			want:  "|", phase: Submitting, effects: []Effect{DefaultSink{Attempt: id, Text: "at @a.go and @b.go, ok"}}},
		{name: "two chips side by side", start: "￼￼", refs: []Reference{ra, rb},
			steps: steps(toSubmitting, Serialized{Attempt: id, ID: 1, Text: "@a.go"}, Serialized{Attempt: id, ID: 2, Text: "@b.go"}),
			want:  "|", phase: Submitting, effects: []Effect{DefaultSink{Attempt: id, Text: "@a.go @b.go"}}},
		{name: "a failure sends nothing and aborts the rest", start: "look at ￼ and ￼", refs: []Reference{ra, rb},
			steps: steps(toSubmitting, Serialized{Attempt: id, ID: 2, Err: errBoom}),
			want:  "look at ￼ and ￼|", phase: Plain,
			effects: []Effect{Abort{Attempt: id}, SetView{Text: "look at ￼ and ￼", SelStart: 15, SelEnd: 15},
				Notice{Kind: SerializeFailedNotice, Attempt: id, Detail: "boom", Restored: true}}},
		{name: "a cancel sends nothing", start: "￼|", steps: steps(toSubmitting, Serialized{Attempt: id, ID: 1, Err: context.Canceled}),
			want: "￼|", phase: Plain,
			effects: []Effect{Abort{Attempt: id}, SetView{Text: chip, SelStart: 1, SelEnd: 1},
				Notice{Kind: SerializeFailedNotice, Attempt: id, Detail: "context canceled", Restored: true}}},
		{name: "the shell's missing owner sends nothing", start: "￼|", steps: steps(toSubmitting, Serialized{Attempt: id, ID: 1, Err: ErrNoOwner}),
			want: "￼|", phase: Plain,
			effects: []Effect{Abort{Attempt: id}, SetView{Text: chip, SelStart: 1, SelEnd: 1},
				Notice{Kind: NoOwnerNotice, Attempt: id, Detail: ErrNoOwner.Error(), Restored: true}}},
		{name: "a stale Serialized is ignored", start: "￼|", steps: steps(toSubmitting, Serialized{Attempt: attemptID(9), ID: 1, Text: "x"}),
			want: "|", phase: Submitting},
		{name: "a claimed draft's chips are serialized too", start: "/ex|",
			steps: steps(toClaimed, insertRef(ra, 9, 9), Submit{}, Serialized{Attempt: id, ID: 1, Text: "A"}),
			want:  "|", phase: Submitting, effects: []Effect{BeginSubmit{Attempt: id, Claim: example, Text: "/example A"}}},
		{name: "adjudicated to a claim", start: "/example x|", steps: []step{Submit{}, Adjudicated{Attempt: id, Claim: example}},
			want: "|", phase: Submitting, effects: []Effect{BeginSubmit{Attempt: id, Claim: example, Text: "/example x"}}},
	})
}

func TestMissingOwnerInConfig(t *testing.T) {
	cfg := Config{Session: "s", Owns: func(source string) bool { return source == "@file" }}
	m := buildCfg(t, cfg, "￼ ￼", ref("a"), Reference{Source: "@gone", Ref: "x", Label: "x", ClipboardText: "/x"})
	effs := run(t, m, Submit{}, Adjudicated{Attempt: attemptID(1)})
	equal(t, "effects", effs, []Effect{SetView{Text: "￼ ￼", SelStart: 3, SelEnd: 3},
		Notice{Kind: NoOwnerNotice, Attempt: attemptID(1), Detail: "@gone", Restored: true}})
	equal(t, "draft", show(m), "￼ ￼|")
}
