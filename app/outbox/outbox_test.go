package outbox

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/app/api"
	mo "parley/machine/outbox"
	"parley/protocol"
)

// TestClassify: no answer, or one that says to try later (an edge whose runtime is away
// answers 503), is tried again; any other refusal is not.
func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want mo.Result
	}{
		{nil, mo.Done},
		{fmt.Errorf("%w (connection refused)", api.ErrUnreachable), mo.Unreachable},
		{&api.Error{Status: 503}, mo.Unreachable},
		{&api.Error{Status: 429}, mo.Unreachable},
		{&api.Error{Status: 404}, mo.Rejected},
		{&api.Error{Status: 409}, mo.Rejected},
		{&protocol.ValidationError{Fields: map[string]string{"text": "too long"}}, mo.Rejected},
		{errors.New("something else"), mo.Rejected},
	} {
		assert.Equal(t, tt.want, Classify(tt.err), "%v", tt.err)
	}
}
