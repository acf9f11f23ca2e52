package widget

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/machine/elicit"
)

// The answers given so far are kept in the tab's sessionStorage as an elicit.Log: a reload
// mid-question replays them into the new form. This file is only the storage; the log and its
// replay are pure (machine/elicit). The answers go when the answer is taken.

func sessionStorage() app.Value {
	if !app.IsClient {
		return app.Null()
	}
	return app.Window().Get("sessionStorage")
}

// Keep starts keeping the answers under key, first replaying what is kept there.
func (v *FormView) Keep(key string) {
	v.kept = key
	st := sessionStorage()
	if !st.Truthy() {
		return
	}
	raw := st.Call("getItem", key)
	if !raw.Truthy() {
		return
	}
	var log elicit.Log
	if json.Unmarshal([]byte(raw.String()), &log) != nil {
		return // kept by another version, or damaged: start afresh
	}
	log.Replay(v.form)
	v.log = log
	v.seedInitial() // the controls start from the answers kept
}

// record keeps ev, if the answers are kept.
func (v *FormView) record(ev elicit.Event) {
	if v.kept == "" || !v.log.Record(ev) {
		return
	}
	v.store()
}

// notePosition keeps the question the form is at, when an event moved it: a reload comes
// back there (elicit.Log.At).
func (v *FormView) notePosition() {
	if v.kept == "" || !v.log.At(v.form.Current()) {
		return
	}
	v.store()
}

// store writes the log to the tab's storage.
func (v *FormView) store() {
	if st := sessionStorage(); st.Truthy() {
		raw, _ := json.Marshal(v.log)
		st.Call("setItem", v.kept, string(raw))
	}
}

// Forget drops the kept answers: the answer was taken.
func (v *FormView) Forget() {
	if st := sessionStorage(); v.kept != "" && st.Truthy() {
		st.Call("removeItem", v.kept)
	}
	v.log = elicit.Log{}
}
