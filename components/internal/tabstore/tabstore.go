// Package tabstore keeps small strings in the tab's sessionStorage: what a view keeps across
// a reload of this tab and no longer (the words typed for an approval, the decision set
// aside). Outside the browser, or where the storage is refused, it keeps nothing.
package tabstore

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// Get returns the string kept under key, or "".
func Get(key string) string {
	if !app.IsClient {
		return ""
	}
	if st := app.Window().Get("sessionStorage"); st.Truthy() {
		if v := st.Call("getItem", key); v.Truthy() {
			return v.String()
		}
	}
	return ""
}

// Set keeps value under key; an empty value forgets the key.
func Set(key, value string) {
	if !app.IsClient {
		return
	}
	switch st := app.Window().Get("sessionStorage"); {
	case !st.Truthy():
	case value == "":
		st.Call("removeItem", key)
	default:
		st.Call("setItem", key, value)
	}
}
