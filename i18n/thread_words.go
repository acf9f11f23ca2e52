package i18n

// The thread's button back to its newest messages (QA round 20 #2), shown while the person
// is scrolled up, and a batch's answer that gave a reason for the requests it rejected (QA
// round 20 #5). Their ids follow the batch's words.
const (
	JumpNewest      Msg = lastBatchWord + 1 + iota
	HistApprovedWhy     // %[1]s approved, %[2]s in all, %[3]s the reason of the others

	lastThreadWord = HistApprovedWhy
)

// threadWords are the server's phrases among them, as serverWords: code, English, Chinese.
var threadWords = [...]string{
	"hist_approved_n_of_m_why", "Approved %[1]s of %[2]s; the others rejected: %[3]s", "批准了 %[2]s 个中的 %[1]s 个；其余的已拒绝：%[3]s", // HistApprovedWhy
}

func init() {
	catalogue[JumpNewest] = [nLocales]string{"Jump to the newest messages", "跳到最新消息"}
}
