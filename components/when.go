package components

import (
	"context"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Times as a person reads them (docs/look.md, "Times"). The wording is pure: it takes the
// time now as an argument, and the tables in when_test.go hold it. The views read the clock
// at each render, and a view that shows a relative time renders again every refreshEvery, so
// "just now" becomes "1 min ago" without anything else happening on the page.

// refreshEvery is how often a relative time is worded again: well under its one-minute step.
const refreshEvery = 15 * time.Second

// clock is the views' time now.
var clock = time.Now

// relativeTime says how long before now a session was started, by calendar day once it is
// not today: "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then the date.
// A time after now (another machine's clock ahead of this one) is "just now".
func relativeTime(at, now time.Time) string {
	d := now.Sub(at)
	at = at.In(now.Location())
	days := calendarDays(at, now)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min ago"
	case days == 0:
		return strconv.Itoa(int(d/time.Hour)) + " h ago"
	case days == 1:
		return "yesterday"
	case days < 7:
		return strconv.Itoa(days) + " days ago"
	case at.Year() == now.Year():
		return at.Format("2 Jan")
	}
	return at.Format("2 Jan 2006")
}

// calendarDays counts the midnights between at and now, in now's time zone.
func calendarDays(at, now time.Time) int {
	y, m, d := at.Date()
	a := time.Date(y, m, d, 12, 0, 0, 0, now.Location())
	y, m, d = now.Date()
	b := time.Date(y, m, d, 12, 0, 0, 0, now.Location())
	return int(b.Sub(a).Round(24*time.Hour) / (24 * time.Hour))
}

// ago words how long before now a unix-millisecond time was, to the second while it is
// under a minute (the approvals screen: a decision waits seconds, not days).
func ago(now time.Time, ms int64) string {
	if ms == 0 {
		return "at an unknown time"
	}
	d := now.Sub(time.UnixMilli(ms))
	switch {
	case d < 10*time.Second:
		return "just now"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + " s ago"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h ago"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " days ago"
}

// timesOut words a deadline.
func timesOut(now time.Time, deadline int64) string {
	d := time.UnixMilli(deadline).Sub(now)
	switch {
	case deadline == 0:
		return "no deadline"
	case d <= 0:
		return "timing out now"
	case d < time.Minute:
		return "times out in " + strconv.Itoa(int(d/time.Second)+1) + " s"
	case d < time.Hour:
		return "times out in " + strconv.Itoa(int(d/time.Minute)+1) + " min"
	}
	return "times out in " + strconv.Itoa(int(d/time.Hour)) + " h"
}

// tick renders the component of ctx again every refreshEvery until stop ends (in the
// browser only: the pre-render waits for every async task).
func tick(ctx app.Context, stop context.Context) {
	if !app.IsClient {
		return
	}
	ctx.Async(func() {
		t := time.NewTicker(refreshEvery)
		defer t.Stop()
		for {
			select {
			case <-stop.Done():
				return
			case <-t.C:
				ctx.Dispatch(func(app.Context) {})
			}
		}
	})
}
