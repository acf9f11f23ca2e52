// Package elicit is the form state of one decision's question(s) as a pure, synchronous
// machine: what each field holds, which question is shown, whether the composer's button
// may submit, and the answer shaped to the schema (docs/elicitation.md).
//
// A schema of one question is one field; an object schema is one field per property, in the
// order written. Several questions are shown one at a time (Stepped) with a chip each:
// the chips navigate, Enter and a click on a single choice move on to the next question not
// yet shown (an optional one left empty is skipped, never gone back to), and the composer's
// one button submits the lot once every required question is answered.
// A lone single choice (a one-question enum or boolean without a default) settles on the
// click when the host's AnswerOnClick is on: one decision, one gesture.
//
// Validation is the protocol's: Submit builds Content and checks it with
// protocol.Schema.ValidateContent, so the browser says exactly what the server would, and
// the messages are mapped back onto the fields they name. Effects are plain data: Send and
// Settle name the form's Version, and the view reads Content, rather than carrying the bytes.
//
// A Log keeps the answers given so far as the events that gave them, for a page that reloads
// mid-question to replay them into a new form.
package elicit
