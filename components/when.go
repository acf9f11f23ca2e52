package components

import (
	"context"
	"time"

	"parley/app/locale"
	"parley/i18n"

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

// relativeTime says how long before now a session was last used, in the page's locale
// (i18n.Locale.RelativeTime: the `@` menu words its sessions alike).
func relativeTime(at, now time.Time) string { return locale.Current().RelativeTime(at, now) }

// ago words how long before now a unix-millisecond time was, to the second while it is
// under a minute (the approvals screen: a decision waits seconds, not days).
func ago(now time.Time, ms int64) string {
	if ms == 0 {
		return tr(i18n.UnknownTime)
	}
	d := now.Sub(time.UnixMilli(ms))
	switch {
	case d < 10*time.Second:
		return tr(i18n.JustNow)
	case d < time.Minute:
		return tr(i18n.SAgo, int(d/time.Second))
	case d < time.Hour:
		return tr(i18n.MinAgo, int(d/time.Minute))
	case d < 48*time.Hour:
		return tr(i18n.HAgo, int(d/time.Hour))
	}
	return tr(i18n.DaysAgo, int(d/(24*time.Hour)))
}

// timesOut words a deadline.
func timesOut(now time.Time, deadline int64) string {
	d := time.UnixMilli(deadline).Sub(now)
	switch {
	case deadline == 0:
		return tr(i18n.NoDeadline)
	case d <= 0:
		return tr(i18n.TimingOutNow)
	case d < time.Minute:
		return tr(i18n.TimesOutS, int(d/time.Second)+1)
	case d < time.Hour:
		return tr(i18n.TimesOutMin, int(d/time.Minute)+1)
	}
	return tr(i18n.TimesOutH, int(d/time.Hour))
}

// tick renders the component of ctx again every refreshEvery until stop ends (in the
// browser only: the pre-render waits for every async task). While bySecond says the page
// words a time to the second (a deadline or an ask less than a minute away), it does so every
// second: at 15 s, "times out in 18 s" stayed on screen while the decision had 3 s left, and
// a person who began a reason then was timed out (QA round 27). bySecond runs on the page's
// goroutine, as the render does.
func tick(ctx app.Context, stop context.Context, bySecond func(now time.Time) bool) {
	if !app.IsClient {
		return
	}
	ctx.Async(func() {
		every := time.Second // a first look soon: the page may open on a deadline near
		for {
			select {
			case <-stop.Done():
				return
			case <-time.After(every):
			}
			next := make(chan time.Duration, 1)
			ctx.Dispatch(func(app.Context) {
				if bySecond != nil && bySecond(clock()) {
					next <- time.Second
				} else {
					next <- refreshEvery
				}
			})
			select {
			case <-stop.Done():
				return
			case every = <-next:
			}
		}
	})
}

// withinAMinute says a unix-millisecond time is less than a minute from now, either side:
// its words count seconds.
func withinAMinute(now time.Time, ms int64) bool {
	d := time.UnixMilli(ms).Sub(now)
	return ms != 0 && d > -time.Minute && d < time.Minute
}
