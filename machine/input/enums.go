package input

import "parley/machine/enum"

// Phase is where the input stands between keystrokes and a sent message.
type Phase int

const (
	// Plain: no claim, nothing in flight. Enter asks for adjudication.
	Plain Phase = iota
	// Adjudicating: Enter was pressed on a plain draft; the slash controller is asking the
	// sources whether one of them claims it.
	Adjudicating
	// Claimed: a pick path set a claim; Enter submits it through its owner.
	Claimed
	// Submitting: the attempt's route is decided; serializers and the send are in flight.
	Submitting
)

var phaseNames = [...]string{"plain", "adjudicating", "claimed", "submitting"}

// String returns the Phase's name.
func (p Phase) String() string { return enum.Name(phaseNames[:], p) }

// Mode is how a prompt joins a running turn.
type Mode int

const (
	Queue Mode = iota // after the running turn
	Steer             // into the running turn
)

var modeNames = [...]string{"queue", "steer"}

// String returns the Mode's name.
func (m Mode) String() string { return enum.Name(modeNames[:], m) }

// Reason says why an event was refused.
type Reason int

const (
	// Stale: a CAS span's Rev is not the current draftRev, or an attempt or paste id is
	// not the current one.
	Stale Reason = iota
	// Busy: a submit attempt is in flight and the event needs the draft it froze.
	Busy
	// OutOfRange: a position is outside the draft; the shell's view has drifted.
	OutOfRange
	// Guard: the event's own guard failed (a bare token the draft does not start with, a
	// command span not at the start, a paste range that overlaps an upgraded one).
	Guard
	// Empty: Enter on a draft with nothing to send.
	Empty
)

var reasonNames = [...]string{"stale", "busy", "out-of-range", "guard", "empty"}

// String returns the Reason's name.
func (r Reason) String() string { return enum.Name(reasonNames[:], r) }

// NoticeKind classifies a Notice.
type NoticeKind int

const (
	AdjudicationFailedNotice NoticeKind = iota // the adjudicator failed; nothing was sent
	SendFailedNotice                           // the send or the claim's submit failed
	SerializeFailedNotice                      // a chip's serializer failed or was canceled
	NoOwnerNotice                              // a chip's source has no serializer
	CanceledNotice                             // Release ended the attempt
)

var noticeNames = [...]string{"adjudication-failed", "send-failed", "serialize-failed", "no-owner", "canceled"}

// String returns the NoticeKind's name.
func (k NoticeKind) String() string { return enum.Name(noticeNames[:], k) }
