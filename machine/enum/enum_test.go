package enum

import "testing"

type color int

const (
	red color = iota
	green
	blue
)

var colorNames = [...]string{red: "red", blue: "blue"}

func TestName(t *testing.T) {
	cases := []struct {
		v    color
		want string
	}{
		{red, "red"},
		{blue, "blue"},
		{green, "color(1)"},
		{-1, "color(-1)"},
		{7, "color(7)"},
	}
	for _, c := range cases {
		if got := Name(colorNames[:], c.v); got != c.want {
			t.Errorf("Name(%d) = %q, want %q", int(c.v), got, c.want)
		}
	}
}
