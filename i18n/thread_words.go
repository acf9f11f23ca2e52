package i18n

// The thread's button back to its newest messages (QA round 20 #2), shown while the person
// is scrolled up, and a batch's answer that gave a reason for the requests it rejected (QA
// round 20 #5), a 429's notice that says how long its server asked to wait (QA round 21), and
// the line a run shows for a call an earlier "always" let run. Their ids follow the batch's
// words.
const (
	JumpNewest          Msg = lastBatchWord + 1 + iota
	HistApprovedWhy         // %[1]s approved, %[2]s in all, %[3]s the reason of the others
	ModelRateLimitedFor     // %[1]s the server's URL, %[2]s the seconds its Retry-After asked
	RunGranted              // %[1]s the grant's reach, %[2]s the call (a run's output line)
	QueuedBehind            // %[1]d the decisions waiting behind the one shown

	lastThreadWord = QueuedBehind
)

// threadWords are the server's phrases among them, as serverWords: code, English, Chinese.
var threadWords = [...]string{
	"hist_approved_n_of_m_why", "Approved %[1]s of %[2]s; the others rejected: %[3]s", "批准了 %[2]s 个中的 %[1]s 个；其余的已拒绝：%[3]s", // HistApprovedWhy
	"model_rate_limited_for", "The model server at %[1]s is rate-limiting requests (429) and asks to wait %[2]s s. Send your prompt again after that.", "%[1]s 的模型服务器正在限流（429），要求等待 %[2]s 秒。之后再发送提示。", // ModelRateLimitedFor
}

func init() {
	catalogue[JumpNewest] = [nLocales]string{"Jump to the newest messages", "跳到最新消息"}
	catalogue[QueuedBehind] = [nLocales]string{"%[1]d more after this", "之后还有 %[1]d 个"}
	catalogue[RunGranted] = [nLocales]string{"Allowed without asking by an earlier “always” (%[1]s): %[2]s", "因先前的“始终允许”（%[1]s）未经询问即运行：%[2]s"}
}
