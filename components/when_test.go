package components

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

// TestRelativeTime: a session's time, worded against an injected now, by calendar day once
// it is not today.
func TestRelativeTime(t *testing.T) {
	zone := time.FixedZone("here", 2*3600)
	now := time.Date(2026, 3, 10, 9, 30, 0, 0, zone)
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{now, "just now"},
		{now.Add(30 * time.Second), "just now"}, // another clock ahead of this one
		{now.Add(-59 * time.Second), "just now"},
		{now.Add(-time.Minute), "1 min ago"},
		{now.Add(-2*time.Minute - 59*time.Second), "2 min ago"},
		{now.Add(-59 * time.Minute), "59 min ago"},
		{now.Add(-time.Hour), "1 h ago"},
		{time.Date(2026, 3, 10, 0, 5, 0, 0, zone), "9 h ago"},
		{time.Date(2026, 3, 9, 23, 50, 0, 0, zone), "yesterday"}, // 40 min before, but yesterday
		{time.Date(2026, 3, 9, 0, 1, 0, 0, zone), "yesterday"},
		{time.Date(2026, 3, 8, 23, 0, 0, 0, zone), "2 days ago"},
		{time.Date(2026, 3, 4, 12, 0, 0, 0, zone), "6 days ago"},
		{time.Date(2026, 3, 3, 12, 0, 0, 0, zone), "3 Mar"},
		{time.Date(2025, 12, 31, 12, 0, 0, 0, zone), "31 Dec 2025"},
		{time.Date(2026, 3, 9, 22, 30, 0, 0, time.UTC), "9 h ago"}, // 00:30 here: today
	} {
		assert.Equal(t, c.want, relativeTime(c.at, now), c.at.String())
	}
	// Under the minute's step, the refresh keeps it right.
	assert.Less(t, refreshEvery, time.Minute)
}

// TestAgo: how long a decision has waited, to the second under a minute.
func TestAgo(t *testing.T) {
	now := time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)
	ms := func(d time.Duration) int64 { return now.Add(-d).UnixMilli() }
	for _, c := range []struct {
		at   int64
		want string
	}{
		{0, "at an unknown time"},
		{ms(0), "just now"},
		{ms(9 * time.Second), "just now"},
		{ms(10 * time.Second), "10 s ago"},
		{ms(2 * time.Minute), "2 min ago"},
		{ms(3 * time.Hour), "3 h ago"},
		{ms(72 * time.Hour), "3 days ago"},
	} {
		assert.Equal(t, c.want, ago(now, c.at))
	}
	assert.Equal(t, "times out in 31 s", timesOut(now, now.Add(30*time.Second).UnixMilli()))
	assert.Equal(t, "no deadline", timesOut(now, 0))
}

// TestGroupSessionsByDay: Today, Yesterday and Earlier, by the day in now's time zone.
func TestGroupSessionsByDay(t *testing.T) {
	now := time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)
	list := countGroups(groupSessions(sessionsAt(now, 0, 10*time.Hour, 30*time.Hour, 90*time.Hour), now))
	assert.Equal(t, []string{"Today:1", "Yesterday:2", "Earlier:1"}, list)
}

func sessionsAt(now time.Time, ago ...time.Duration) []protocol.SessionInfo {
	var out []protocol.SessionInfo
	for i, d := range ago {
		out = append(out, protocol.SessionInfo{ID: strconv.Itoa(i), Created: now.Add(-d).UnixMilli()})
	}
	return out
}

func countGroups(gs []sessionGroup) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.name+":"+strconv.Itoa(len(g.sessions)))
	}
	return out
}
