package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBullets(t *testing.T) {
	pair := func(s [2]string) (string, string) { return s[0], s[1] }
	assert.Equal(t, "There are none.", bullets("Things:", "There are none.", [][2]string(nil), pair))
	assert.Equal(t, "Things:\n• a: first\n• b: second\n", bullets("Things:", "", [][2]string{{"a", "first"}, {"b", "second"}}, pair))
}
