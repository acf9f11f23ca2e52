package question

import (
	"fmt"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/components/composer/modes"
	"parley/machine/composer"
	"parley/machine/elicit"
	"parley/protocol"
)

type fh struct{}

func (fh) Client() *api.Client { return &api.Client{} }
func (fh) SessionID() string { return "" }
func (fh) Functions() []protocol.Function { return nil }
func (fh) Answer(ctx app.Context, d composer.Decision, reply protocol.ReplyRequest, done func(ctx app.Context, err error)) {}
func (fh) ChatAbout(ctx app.Context) {}
func (fh) Close(ctx app.Context) {}
func (fh) Ran(ctx app.Context, s string) {}
func (fh) SetProblem(string) {}
func (fh) Later(f func()) { f() }

func TestProto(t *testing.T) {
	req := protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "Pick <script>", Schema: &protocol.Schema{Type: "string", Enum: []string{"a", "b"}}}
	m := New(fh{}, modes.Input{Key: "k1", Decision: composer.Decision{ID: "d1", Request: req}, Options: elicit.DefaultOptions()})
	fmt.Println(app.HTMLString(m.Header()))
	fmt.Println(app.HTMLString(m.Body()))
}
