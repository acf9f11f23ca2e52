// Package widget holds what the composer's modes draw alike (docs/composer.md): a form's
// fields and chips over an elicit.Form (FormView), the one-click choice buttons and their
// arrow keys, and the Replier a decision's mode answers through. The question, approval and
// fn-form modes build on it, so none of them imports another.
package widget
