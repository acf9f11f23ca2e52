package question

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/machine/elicit"
)

// The answers given so far are kept as the events that gave them, in the tab's
// sessionStorage: a reload mid-question replays them into a new form, which is the same
// state by construction (the form is a pure machine). They go when the answer is taken.

// savedEvent is one form event as stored.
type savedEvent struct {
	Kind  string `json:"k"`
	Index int    `json:"i"`
	Value string `json:"v,omitempty"`
	Stay  bool   `json:"s,omitempty"`
}

func saved(ev elicit.Event) (savedEvent, bool) {
	switch e := ev.(type) {
	case elicit.Pick:
		return savedEvent{"pick", e.Index, e.Value, e.Stay}, true
	case elicit.Toggle:
		return savedEvent{"toggle", e.Index, e.Value, false}, true
	case elicit.ChooseOther:
		return savedEvent{"other", e.Index, "", false}, true
	case elicit.Type:
		return savedEvent{"type", e.Index, e.Text, false}, true
	case elicit.TypeOther:
		return savedEvent{"type-other", e.Index, e.Text, false}, true
	case elicit.Goto:
		return savedEvent{"goto", e.Index, "", false}, true
	}
	return savedEvent{}, false // Submit is not an answer
}

func (s savedEvent) event() (elicit.Event, bool) {
	switch s.Kind {
	case "pick":
		// Replayed as browsing: a lone choice must not answer itself on a reload.
		return elicit.Pick{Index: s.Index, Value: s.Value, Stay: true}, true
	case "toggle":
		return elicit.Toggle{Index: s.Index, Value: s.Value}, true
	case "other":
		return elicit.ChooseOther{Index: s.Index}, true
	case "type":
		return elicit.Type{Index: s.Index, Text: s.Value}, true
	case "type-other":
		return elicit.TypeOther{Index: s.Index, Text: s.Value}, true
	case "goto":
		return elicit.Goto{Index: s.Index}, true
	}
	return nil, false
}

func sessionStorage() app.Value {
	if !app.IsClient {
		return app.Null()
	}
	return app.Window().Get("sessionStorage")
}

// keep starts keeping the answers under key, first replaying what is kept there.
func (v *FormView) keep(key string) {
	v.kept = key
	st := sessionStorage()
	if !st.Truthy() {
		return
	}
	raw := st.Call("getItem", key)
	if !raw.Truthy() {
		return
	}
	var log []savedEvent
	if json.Unmarshal([]byte(raw.String()), &log) != nil {
		return
	}
	for _, s := range log {
		if ev, ok := s.event(); ok {
			v.form.Dispatch(ev) // the effects were had before the reload
		}
	}
	v.log = log
	if v.form.Stepped() {
		// Back where the person was headed: the first question still unanswered.
		for i := range v.fields {
			if !v.form.Complete(i) {
				v.form.Dispatch(elicit.Goto{Index: i})
				break
			}
		}
	}
}

// record keeps ev, if the answers are kept. Typing writes one growing entry per field, so
// the log stays as long as the form, not as long as the typing.
func (v *FormView) record(ev elicit.Event) {
	if v.kept == "" {
		return
	}
	s, ok := saved(ev)
	if !ok {
		return
	}
	if n := len(v.log); n > 0 && (s.Kind == "type" || s.Kind == "type-other") && v.log[n-1].Kind == s.Kind && v.log[n-1].Index == s.Index {
		v.log[n-1] = s
	} else {
		v.log = append(v.log, s)
	}
	if st := sessionStorage(); st.Truthy() {
		raw, _ := json.Marshal(v.log)
		st.Call("setItem", v.kept, string(raw))
	}
}

// forget drops the kept answers: the answer was taken.
func (v *FormView) forget() {
	if st := sessionStorage(); v.kept != "" && st.Truthy() {
		st.Call("removeItem", v.kept)
	}
	v.log = nil
}
