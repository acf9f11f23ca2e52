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
