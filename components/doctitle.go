package components

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/i18n"
)

// documentTitle is the browser tab's title: the page it shows (a session's title, the
// approvals screen) and, first, how many decisions wait, so tabs can be told apart and a
// background one that needs the person says so, as chat apps' tabs do.
func documentTitle(page string, waiting int) string {
	t := "Parley"
	if page != "" {
		t = page + " · Parley"
	}
	if waiting > 0 {
		t = "(" + strconv.Itoa(waiting) + ") " + t
	}
	return t
}

// shownTitle is what the tab says now: the document is written only when that changes.
var shownTitle string

func setDocumentTitle(t string) {
	if !app.IsClient || t == shownTitle {
		return
	}
	shownTitle = t
	app.Window().Get("document").Set("title", t)
}

// syncDocumentTitle titles the tab after the page the sidebar stands beside.
func (s *Sidebar) syncDocumentTitle() {
	page := ""
	if s.Approvals {
		page = tr(i18n.ApprovalsTitle)
	}
	for _, info := range s.Sessions {
		if info.ID == s.Current && s.Current != "" {
			page = titleWords(info.Title)
		}
	}
	setDocumentTitle(documentTitle(page, s.pending.total))
	markMenuToggle(s.pending.total)
}

// markMenuToggle shows on a phone's Sessions toggle how many decisions wait, as the sidebar
// behind it does (QA round 26: nothing said so until the drawer opened). The toggle is the
// page's frame's, drawn apart from the sidebar that knows the count: the count goes on it
// as an attribute its stylesheet draws, and in its name.
func markMenuToggle(n int) {
	if !app.IsClient {
		return
	}
	t := app.Window().Get("document").Call("querySelector", ".menu-toggle")
	if !t.Truthy() {
		return
	}
	if n <= 0 {
		t.Call("removeAttribute", "data-waiting")
		t.Call("removeAttribute", "aria-label")
		return
	}
	t.Call("setAttribute", "data-waiting", strconv.Itoa(n))
	t.Call("setAttribute", "aria-label", tr(i18n.Sessions)+", "+waitingWords(n))
}
