package input

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHandback: which keys after the words came back find the hold on. A key is given as its
// delay after the one before (the first's after the words came back); given is false for a
// bar that got no words back.
func TestHandback(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	cases := []struct {
		name  string
		given bool
		gaps  []time.Duration
		held  []bool
	}{
		{"nothing came back", false, []time.Duration{0, ms(100)}, []bool{false, false}},
		{"typing on: the rest of the word and the Enter are held", true,
			[]time.Duration{ms(150), ms(150), ms(300)}, []bool{true, true, true}},
		{"the report's pace: 1.3 s of keys after the words came back", true,
			[]time.Duration{ms(400), ms(150), ms(150), ms(300), ms(300)}, []bool{true, true, true, true, true}},
		{"a pause to read ends it", true,
			[]time.Duration{ms(150), HandbackPause, ms(100)}, []bool{true, false, false}},
		{"a first key after a pause is the person's own", true, []time.Duration{HandbackPause + ms(1)}, []bool{false}},
		{"a pause just short of it holds on", true, []time.Duration{HandbackPause - ms(1)}, []bool{true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h Handback
			at := time.Unix(1000, 0)
			if c.given {
				h.Give(at, "Lond")
			}
			var got []bool
			for _, gap := range c.gaps {
				at = at.Add(gap)
				got = append(got, h.Key(at))
			}
			assert.Equal(t, c.held, got)
		})
	}
}

// TestHandbackGivenAgain: words handed back again start a new hold, even after one ended.
func TestHandbackGivenAgain(t *testing.T) {
	var h Handback
	at := time.Unix(1000, 0)
	h.Give(at, "Lond")
	assert.False(t, h.Key(at.Add(2*HandbackPause)))
	h.Give(at.Add(3*HandbackPause), "Lond")
	assert.True(t, h.Key(at.Add(3*HandbackPause+100*time.Millisecond)))
}

// TestHandbackHoldsOnlyItsWords: an Enter is held while the box still holds the words handed
// back; written over (the person put something else there), the Enter is theirs.
func TestHandbackHoldsOnlyItsWords(t *testing.T) {
	var h Handback
	at := time.Unix(1000, 0)
	assert.False(t, h.Holds("anything"), "nothing handed back")
	h.Give(at, "Lond")
	require.True(t, h.Key(at.Add(200*time.Millisecond)))
	assert.True(t, h.Holds("London"))
	assert.True(t, h.Holds("my draft\nLondon"), "after a draft")
	assert.False(t, h.Holds("/script run_batch(…)"), "written over")
	assert.False(t, h.Holds(""))
	require.False(t, h.Key(at.Add(200*time.Millisecond+HandbackPause)))
	assert.False(t, h.Holds("London"), "after a pause")
}
