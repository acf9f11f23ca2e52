package protocol

// EventPromptWithdrawn says the person took back a prompt that was waiting for its turn: it
// never runs, and the thread no longer shows it (POST .../prompts/{offset}/withdraw).
const EventPromptWithdrawn EventType = "prompt.withdrawn"

// PromptWithdrawn is the data of prompt.withdrawn: the offset of the withdrawn user.message.
type PromptWithdrawn struct {
	Prompt uint64 `json:"prompt"`
}

// WithdrawResponse answers a withdrawal with the offset of its prompt.withdrawn.
type WithdrawResponse struct {
	Offset uint64 `json:"offset"`
}

// EventPromptEdited says the person changed a prompt that was still waiting for its turn
// (POST .../prompts/{offset}/edit): it keeps its place in the queue, and everything that
// reads the prompt (the queue, the thread, the model's history) reads Text instead of the
// user.message's own. The runtime refuses it once the prompt's turn started.
const EventPromptEdited EventType = "prompt.edited"

// PromptEdited is the data of prompt.edited: the offset of the user.message and its new text.
type PromptEdited struct {
	Prompt uint64 `json:"prompt"`
	Text   string `json:"text"`
}

// EditPromptRequest is the body of an edit of a waiting prompt.
type EditPromptRequest struct {
	Text string `json:"text"`
}

// EditResponse answers an edit with the offset of its prompt.edited.
type EditResponse struct {
	Offset uint64 `json:"offset"`
}

// Edits returns the latest text of each prompt that a prompt.edited in evs changed, by the
// prompt's offset; nil when none was. An edit read after the prompt was taken (its
// turn.started, prompt.steered or prompt.withdrawn came first) counts for nothing: the
// runtime refuses those, and one that raced past the refusal must not rewrite what was run.
func Edits(evs []Event) map[uint64]string {
	var out map[uint64]string
	var taken map[uint64]bool
	for _, ev := range evs {
		if p, ok := ev.TakenPrompt(); ok {
			if taken == nil {
				taken = map[uint64]bool{}
			}
			taken[p] = true
		} else if ev.Type == EventPromptEdited {
			if pe, err := DecodeEventData[PromptEdited](ev); err == nil && !taken[pe.Prompt] {
				if out == nil {
					out = map[uint64]string{}
				}
				out[pe.Prompt] = pe.Text
			}
		}
	}
	return out
}

// TakenPrompt is the prompt an event takes from the queue: the one a turn.started runs, a
// prompt.steered hands to the running turn, or a prompt.withdrawn takes back before its turn.
// ok is false for any other event, and for one that does not decode.
func (e Event) TakenPrompt() (prompt uint64, ok bool) {
	switch e.Type {
	case EventTurnStarted:
		v, err := DecodeEventData[TurnStarted](e)
		return v.Prompt, err == nil
	case EventPromptSteered:
		v, err := DecodeEventData[PromptSteered](e)
		return v.Prompt, err == nil
	case EventPromptWithdrawn:
		v, err := DecodeEventData[PromptWithdrawn](e)
		return v.Prompt, err == nil
	}
	return 0, false
}

// Validate checks the new text as a prompt's: not empty, within the limit, valid UTF-8.
func (r EditPromptRequest) Validate() error {
	f := fieldErrors{}
	checkPromptText(f, r.Text, "prompt_empty_withdraw", "the prompt is empty: to take it back, remove it instead")
	return f.err()
}
