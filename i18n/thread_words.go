package i18n

// The thread's button back to its newest messages (QA round 20 #2), shown while the person
// is scrolled up. Its id follows the batch's words.
const (
	JumpNewest Msg = lastBatchWord + 1 + iota

	lastThreadWord = JumpNewest
)

func init() {
	catalogue[JumpNewest] = [nLocales]string{"Jump to the newest messages", "跳到最新消息"}
}
