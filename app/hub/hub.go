// Package hub is the input bar's send orchestration: the default sink of the input machine.
// The machine clears the draft optimistically and names the attempt; the hub creates the
// session first when the prompt comes from the hero, sends the prompt in the mode the person
// chose, and reports how it settled. It knows nothing of the browser, so it is tested
// natively against a fake API.
package hub

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"parley/app/api"
	"parley/app/locale"
	"parley/i18n"
	"parley/machine/input"
	"parley/protocol"
)

// API is what the hub needs of the server: the browser's api.Client implements it.
type API interface {
	CreateSession(ctx context.Context, req protocol.CreateSessionRequest) (protocol.SessionInfo, error)
	SendPrompt(ctx context.Context, session string, req protocol.SendPromptRequest) (protocol.SendPromptResponse, error)
}

// Prompt is one send: the model projection of a draft, from the default sink or a claim's
// submit (server commands travel as text too; the server runs them at its door).
type Prompt struct {
	Session   string // "" from the hero: the hub creates the session first
	Text      string
	Mode      input.Mode
	AttemptID string // kept across retries, so the server stores the prompt once
}

// Result says how a send settled.
type Result struct {
	Session string                // where the prompt went: the created session from the hero
	Created *protocol.SessionInfo // the session the hub created, if it did
	Offset  uint64                // where the server stored the prompt
	Err     error                 // nil: committed
}

// Send sends p. From the hero it first creates a session titled after the prompt's first
// line and calls created before sending, so the view can move there at once; a failure after
// that still names the created session, so the draft comes back where the person now is.
func Send(ctx context.Context, a API, p Prompt, created func(protocol.SessionInfo)) Result {
	var r Result
	r.Session = p.Session
	if strings.TrimSpace(p.Text) == "" {
		r.Err = errors.New("there is nothing to send")
		return r
	}
	if r.Session == "" {
		info, err := a.CreateSession(ctx, protocol.CreateSessionRequest{Title: TitleFrom(p.Text)})
		if err != nil {
			r.Err = err
			return r
		}
		r.Session, r.Created = info.ID, &info
		if created != nil {
			created(info)
		}
	}
	resp, err := a.SendPrompt(ctx, r.Session, protocol.SendPromptRequest{Text: p.Text, AttemptID: p.AttemptID, Mode: ModeOf(p.Mode)})
	r.Offset, r.Err = resp.Offset, err
	return r
}

// ModeOf is the wire mode of a machine mode.
func ModeOf(m input.Mode) protocol.PromptMode {
	if m == input.Steer {
		return protocol.ModeSteer
	}
	return protocol.ModeQueue
}

// TitleFrom names a session after the first line of its first prompt (protocol.TitleFrom).
func TitleFrom(text string) string { return protocol.TitleFrom(text) }

// DescribeError words a failure for a person: field errors by their message, an unreachable
// server as such, the server's own message otherwise.
func DescribeError(err error) string {
	var verr *protocol.ValidationError
	var apiErr *api.Error
	l := locale.Current()
	switch {
	case errors.Is(err, api.ErrUnreachable):
		return l.T(i18n.ErrUnreachable)
	case errors.As(err, &verr):
		return joinFields(l.FieldsIn(verr.Fields, verr.Phrases))
	case errors.As(err, &apiErr) && len(apiErr.Fields) > 0:
		return joinFields(l.FieldsIn(apiErr.Fields, apiErr.Phrases))
	case errors.As(err, &apiErr):
		// The server's stable code, in the page's locale; an unknown code keeps its words.
		return l.Error(apiErr.Code, apiErr.ErrorResponse.Error)
	}
	return err.Error()
}

func joinFields(fields map[string]string) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		parts = append(parts, fields[name])
	}
	return strings.Join(parts, "; ")
}

// Notice is what the person reads about a submit that did not go through.
type Notice struct {
	Text string
	// UntilLive: the server was not reachable, so the notice may go once the link is back.
	UntilLive bool
	// Say words it again in the page's locale, for a switch while it shows (nil: Text).
	Say func() string
	// Withdraw takes back the input bar's last notice, and only its: the draft it spoke of
	// is gone (QA round 19: "not sent, your text is back" stood over an empty box).
	Withdraw bool
	// Info marks news that is no problem (the words went back to the box because a request
	// ended elsewhere): drawn as information, not in a problem's red (QA round 25).
	Info bool
}

// NoticeOf words the machine's notice. err is the send's error when there was one (the
// machine's notice carries only its text).
func NoticeOf(n input.Notice, err error) Notice {
	why := n.Detail
	if err != nil {
		why = DescribeError(err)
	}
	l := locale.Current()
	var b strings.Builder
	switch n.Kind {
	case input.CanceledNotice:
		b.WriteString(l.T(i18n.NotSentCanceled))
	case input.AdjudicationFailedNotice:
		b.WriteString(l.T(i18n.NotSentWhy, orElse(why, l.T(i18n.WhyUnchecked))))
	case input.NoOwnerNotice, input.SerializeFailedNotice:
		b.WriteString(l.T(i18n.NotSentRef, orElse(why, l.T(i18n.WhyNoOwner))))
	default:
		b.WriteString(l.T(i18n.NotSentWhy, orElse(why, l.T(i18n.WhySendFailed))))
	}
	if n.Restored {
		b.WriteString(l.T(i18n.TextRestored))
	} else {
		// The person kept typing: their new text stays, and the unsent one is shown here.
		b.WriteString(l.T(i18n.TextKept, n.Draft))
	}
	return Notice{Text: b.String(), UntilLive: errors.Is(err, api.ErrUnreachable), Say: func() string { return NoticeOf(n, err).Text }}
}

func orElse(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
