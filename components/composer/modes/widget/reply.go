package widget

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/i18n"

	"parley/app/hub"
	"parley/components/composer/modes"
	"parley/machine/composer"
	"parley/protocol"
)

// Replier sends a decision's reply once at a time, and shows why one was not taken. The
// question and approval modes answer through it.
type Replier struct {
	Host     modes.Host
	Decision composer.Decision
	Failed   func() // if not nil, runs when a reply was not taken
	sending  bool
}

// Sending reports whether a reply is on its way.
func (r *Replier) Sending() bool { return r.sending }

// Send sends reply unless one is on its way; taken, if not nil, runs once it was taken.
func (r *Replier) Send(ctx app.Context, reply protocol.ReplyRequest, taken func()) {
	if r.sending {
		return
	}
	r.sending = true
	r.Host.SetProblem("")
	r.Host.Answer(ctx, r.Decision, reply, func(ctx app.Context, err error) {
		r.sending = false
		if err != nil {
			r.Host.SetProblem(locale.T(i18n.NotAnswered, Describe(err)))
			if r.Failed != nil {
				r.Failed()
			}
			return
		}
		if taken != nil {
			taken()
		}
	})
}

// Describe words a failure for a person: field errors by their message, an unreachable
// server as such, the server's own message otherwise (hub.DescribeError).
func Describe(err error) string { return hub.DescribeError(err) }
