package components

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/protocol"
)

// A prompt names another session as "@session:<id>", the chip's projection for the model
// (components/inputbar, Serialize). The person's bubble shows it as the chip did, by the
// session's title, and links to it: the bare id read as noise (QA round 26).

const sessionRef = "@session:"

// refPart is a piece of a prompt's text: plain text, or a session it names.
type refPart struct {
	text    string
	session string // the id, for a reference
}

// sessionRefs splits text at its session references. A reference ends at the first
// character an id cannot hold; one with no id is text.
func sessionRefs(text string) []refPart {
	var out []refPart
	for {
		i := strings.Index(text, sessionRef)
		if i < 0 {
			break
		}
		rest := text[i+len(sessionRef):]
		n := 0
		for n < len(rest) && protocol.IDByte(rest[n]) {
			n++
		}
		if n == 0 || !protocol.ValidSessionID(rest[:n]) {
			out = append(out, refPart{text: text[:i+len(sessionRef)]})
			text = rest
			continue
		}
		if i > 0 {
			out = append(out, refPart{text: text[:i]})
		}
		out = append(out, refPart{session: rest[:n]})
		text = rest[n:]
	}
	if text != "" {
		out = append(out, refPart{text: text})
	}
	return out
}

// promptText draws a person's prompt: its text, with the sessions it names as links titled
// as the session list titles them (the id when the list does not hold it).
func promptText(text string) app.UI {
	parts := sessionRefs(text)
	if len(parts) == 1 && parts[0].session == "" {
		return app.Div().Class("msg-text").Attr("dir", "auto").Text(text)
	}
	nodes := make([]app.UI, 0, len(parts))
	for _, p := range parts {
		if p.session == "" {
			nodes = append(nodes, app.Span().Text(p.text))
			continue
		}
		nodes = append(nodes, &sessionRefLink{ID: p.session})
	}
	return app.Div().Class("msg-text").Attr("dir", "auto").Body(nodes...)
}

// actionSessionsKnown says the page's session list was read (knownSessions): the links to
// sessions a prompt names take their titles. A thread drawn from the log before the list
// arrived named them by id, and nothing drew them again (QA round 27).
const actionSessionsKnown = "parley.sessions.known"

// sessionRefLink is a link to a session a prompt names, titled as the list titles it: its
// title is read at each render, which the list's arrival asks for.
type sessionRefLink struct {
	app.Compo
	ID string
}

func (l *sessionRefLink) OnMount(ctx app.Context) {
	ctx.Handle(actionSessionsKnown, func(ctx app.Context, a app.Action) { ctx.Update() })
}

func (l *sessionRefLink) Render() app.UI {
	return app.A().Class("msg-ref").Href("/s/"+l.ID).Attr("dir", "auto").Text("@" + sessionTitle(l.ID))
}

// sessionTitle is a session's title as this page last listed it, else its id.
func sessionTitle(id string) string {
	for _, s := range knownSessions {
		if s.ID == id && strings.TrimSpace(s.Title) != "" {
			return s.Title
		}
	}
	return id
}
