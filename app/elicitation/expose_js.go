//go:build js

package elicitation

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/protocol"
)

// Expose makes RequestUserInput callable from the page's JavaScript, for code outside the
// Go program (an extension, a devtools session) that must ask the person:
//
//	const answer = await parley.requestUserInput({kind: 'ask', message: 'Which one?',
//	    schema: {type: 'string', enum: ['a', 'b']}});
//	// {action: 'accept', content: 'a'} or {action: 'decline'}; rejects with an Error named
//	// 'AbortError' (reason 'aborted' or 'no-presenter') when it ends without an answer.
//
// An AbortSignal passed as the second argument cancels the request.
func Expose() {
	ns := app.Window().Get("parley")
	if !ns.Truthy() {
		ns = app.Window().Get("Object").New()
		app.Window().Set("parley", ns)
	}
	ns.Set("requestUserInput", app.FuncOf(func(this app.Value, args []app.Value) any {
		return app.Window().Get("Promise").New(app.FuncOf(func(_ app.Value, pr []app.Value) any {
			resolve, reject := pr[0], pr[1]
			var req protocol.DecisionRequest
			if len(args) == 0 || json.Unmarshal([]byte(app.Window().Get("JSON").Call("stringify", args[0]).String()), &req) != nil {
				reject.Invoke(app.Window().Get("TypeError").New("requestUserInput takes a request object: {kind, message, schema}"))
				return nil
			}
			ctx, cancel := context.WithCancel(context.Background())
			if len(args) > 1 && args[1].Truthy() {
				signal := args[1]
				if signal.Get("aborted").Bool() {
					cancel()
				}
				signal.Call("addEventListener", "abort", app.FuncOf(func(app.Value, []app.Value) any { cancel(); return nil }))
			}
			go func() {
				defer cancel()
				res, err := RequestUserInput(ctx, req)
				if err != nil {
					e := app.Window().Get("Error").New(err.Error())
					var abort *AbortError
					if errors.As(err, &abort) {
						e.Set("name", "AbortError")
						e.Set("reason", abort.Reason)
					}
					reject.Invoke(e)
					return
				}
				out, _ := json.Marshal(struct {
					Action  protocol.ReplyAction `json:"action"`
					Content json.RawMessage      `json:"content,omitempty"`
				}{res.Action, res.Content})
				resolve.Invoke(app.Window().Get("JSON").Call("parse", string(out)))
			}()
			return nil
		}))
	}))
}
