package i18n

import "time"

// Times as a person reads them (docs/look.md, "Times"): the sidebar's sessions and the `@`
// menu's. The time now is an argument, so the wording is pure.

// RelativeTime says how long before now a session was last used, by calendar day once it is
// not today: "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then the date.
// A time after now (another machine's clock ahead of this one) is "just now".
func (l Locale) RelativeTime(at, now time.Time) string {
	d := now.Sub(at)
	at = at.In(now.Location())
	days := calendarDays(at, now)
	switch {
	case d < time.Minute:
		return l.T(JustNow)
	case d < time.Hour:
		return l.T(MinAgo, int(d/time.Minute))
	case days == 0:
		return l.T(HAgo, int(d/time.Hour))
	case days == 1:
		return l.T(YesterdayWhen)
	case days < 7:
		return l.T(DaysAgo, days)
	case at.Year() == now.Year():
		return at.Format(l.T(LayoutDay))
	}
	return at.Format(l.T(LayoutDayYear))
}

// calendarDays counts the midnights between at and now, in now's time zone.
func calendarDays(at, now time.Time) int {
	y, m, d := at.Date()
	a := time.Date(y, m, d, 12, 0, 0, 0, now.Location())
	y, m, d = now.Date()
	b := time.Date(y, m, d, 12, 0, 0, 0, now.Location())
	return int(b.Sub(a).Round(24*time.Hour) / (24 * time.Hour))
}
