package notify

import (
	"parley/i18n"
	"parley/protocol"
)

// A desktop notification in its reader's locale (docs/i18n.md): a page's stream names its
// locale, a device's subscription keeps the one of the page that subscribed. The words live
// here, on the server only (the page never writes a notification, so the wasm holds none).
var words = [...]protocol.NotificationWords{
	i18n.English: protocol.EnglishNotification,
	i18n.Chinese: {Question: "一个问题", Approval: "需要批准", Confirm: "请确认", Sep: "：", In: "在“", After: "”中"},
}

// InLocale is n worded in l: its kind, and the question by its phrase where the server
// wrote it in fixed words (the approval gate's); a withdrawal, or a notification without
// its request, as it is.
func InLocale(l i18n.Locale, n protocol.Notification) protocol.Notification {
	if n.Withdrawn || n.Request == nil || l == i18n.English || int(l) >= len(words) {
		return n
	}
	return protocol.NotificationIn(words[l], n.Session, n.Thread, protocol.QuestionAsked{ID: n.Decision, Request: l.Request(*n.Request)})
}
