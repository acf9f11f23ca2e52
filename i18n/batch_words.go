package i18n

// The words of a batch's "approve all" once some requests are marked Reject (QA round 14
// #1, machine/batch): it approves the others and rejects the marked ones, and says so. Their
// ids follow the look's words; their texts are in views (a large map literal is data).
const (
	BatchApproveSome     Msg = lastLookWord + 1 + iota // %[1]d approved, %[2]d rejected
	BatchApproveQuestion                               // %[1]s the request, %[2]d approved, %[3]d rejected

	lastBatchWord = BatchApproveQuestion
)
