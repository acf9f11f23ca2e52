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
}
