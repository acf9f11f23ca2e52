package i18n

// Msg names a message of the catalogue.
type Msg int

// The messages, grouped by where they show. A message's English text is its documentation.
const (
	_ Msg = iota

	// The composer's container.
	ChatAbout
	ChatAboutTitle
	DecisionsWaitingOne
	DecisionsWaitingMany // %[1]d
	AnswerWaiting
	DecisionHeld
	DraftKept // %[1]s: the draft's first line
	DraftKeptLabel
	EnterHeldDraft
	EnterHeldHere
	NoteTimedOut
	Functions
	FunctionsTitle
	LocaleLabel
	KeyHint // %[1]s: the chord, as the platform writes it

	// The question mode.
	Question
	QuestionOf // %[1]s: the message
	Confirm
	Send
	SendAnswers
	SendLone
	SendIncomplete
	Decline
	DeclineTitle
	Questions
	Answered
	Unanswered
	Other
	YourOwnAnswer
	Recommended
	Yes
	No

	// The approval mode.
	Approval
	ApprovalOf // %[1]s
	WhatWouldRun
	ShowAll
	Answers
	InsteadLabel
	InsteadPlaceholder
	RejectWithWords
	PickOrType
	RejectTitle
	Reject
	AlwaysFor      // %[1]s
	AlwaysForWords // %[1]s
	AlwaysExactly
	InstructionTooLong // %[1]d bytes, %[2]d KiB
	NotAnswered        // %[1]s: why

	// The fn-form.
	RunFunction
	RunNamed // %[1]s
	Run
	RunTitle
	ChooseFirst
	Close
	CloseTitle
	Function
	ChooseFunction
	NoFunctions
	ChooseToRun
	Loading // %[1]s
	NoParameters

	// A field's hints, shown before typing.
	HintRange   // %[1]s–%[2]s
	HintAtLeast // %[1]s
	HintAtMost  // %[1]s
	HintWhole
	HintNumber
	HintChars      // %[1]d–%[2]d
	HintCharsMin   // %[1]d
	HintCharsMax   // %[1]d
	HintPicks      // %[1]d–%[2]d
	HintPicksExact // %[1]d
	HintPicksMin   // %[1]d
	HintPicksMax   // %[1]d
	HintEmail
	HintURL
	HintDate
	HintDateTime
	HintSep

	// The input bar.
	Message
	HintKeys
	HintMenu
	HintTouch
	SendTitle
	Queue
	QueueTitle
	Steer
	QueuedPrompts
	QueuedLater
	QueuedSteer
	QueueEdit
	QueueEditLabel
	QueueRemove
	QueueRemoveLabel
	QueueEditField
	QueueSave
	QueueCancel
	MenuCommands
	MenuSkills
	MenuFunctions
	MenuSessions
	MenuFiles
	MenuFilesSessions
	MenuAll
	MenuShown // %[1]d: the options
	MenuClosed
	KindFunction
	KindSkill
	KindFile
	KindFolder
	KindSession
	UntitledSession
	HintRunning
	HintTouchRunning
	SteerTitle
)

// catalogue holds every message in English and Chinese (Simplified), in Locale order.
var catalogue = map[Msg][nLocales]string{
	ChatAbout:            {"Chat about this", "先聊聊"},
	ChatAboutTitle:       {"Back to typing; the question stays open (Esc)", "回到输入；问题保持待答（Esc）"},
	DecisionsWaitingOne:  {"1 decision is waiting", "1 个决定待处理"},
	DecisionsWaitingMany: {"%[1]d decisions are waiting", "%[1]d 个决定待处理"},
	AnswerWaiting:        {"Answer", "去回答"},
	DecisionHeld:         {"A decision is waiting: it takes this form's place when you pause typing (the form keeps what you typed)", "有一个决定待处理：你停止输入后它会接替此表单（表单会保留你输入的内容）"},
	DraftKept:            {"Your draft is kept: %[1]s", "草稿已保留：%[1]s"},
	DraftKeptLabel:       {"Your draft, kept under the question", "问题下保留的草稿"},
	EnterHeldDraft:       {"Enter does not send your draft while this waits: answer it, or press Esc for your draft.", "这个请求等待时，Enter 不会发送草稿：请先回答，或按 Esc 回到草稿。"},
	EnterHeldHere:        {"Enter does nothing here: pick an answer, or press Esc to set this aside.", "Enter 在这里不起作用：请选择一个回答，或按 Esc 先放到一边。"},
	NoteTimedOut:         {"No response, timed out.", "未回应，已超时。"},
	Functions:            {"Functions", "函数"}, // after the view's ƒ, hidden from screen readers
	FunctionsTitle:       {"Run a function with typed parameters", "用带类型的参数运行函数"},
	LocaleLabel:          {"Language", "语言"},
	KeyHint:              {"%[1]s", "%[1]s"},

	Question:       {"Question", "问题"},
	QuestionOf:     {"Question: %[1]s", "问题：%[1]s"},
	Confirm:        {"Confirm", "确认"},
	Send:           {"Send", "发送"},
	SendAnswers:    {"Send the answers", "发送回答"},
	SendLone:       {"Pick an answer: the click sends it", "选一个答案：点击即发送"},
	SendIncomplete: {"Answer every required question first", "请先回答所有必答问题"},
	Decline:        {"Decline", "拒绝回答"},
	DeclineTitle:   {"Decline to answer", "拒绝回答这个问题"},
	Questions:      {"Questions", "问题"},
	Answered:       {"answered", "已回答"},
	Unanswered:     {"unanswered", "未回答"},
	Other:          {"Other…", "其他…"},
	YourOwnAnswer:  {"Your own answer", "你自己的回答"},
	Recommended:    {"recommended", "推荐"},
	Yes:            {"Yes", "是"},
	No:             {"No", "否"},

	Approval:           {"Approval", "审批"},
	ApprovalOf:         {"Approval: %[1]s", "审批：%[1]s"},
	WhatWouldRun:       {"What would run", "将要运行的内容"},
	ShowAll:            {"Show all", "显示全部"},
	Answers:            {"Answers", "回答"},
	InsteadLabel:       {"Or say what to do instead", "或者说说应该怎么做"},
	InsteadPlaceholder: {"Or say what to do instead (rejects with your words)", "或者说说应该怎么做（附上你的话拒绝）"},
	RejectWithWords:    {"Reject, and tell the agent what to do instead", "拒绝，并告诉智能体该怎么做"},
	PickOrType:         {"Pick an answer above, or type what to do instead", "选择上面的一个答案，或输入应该怎么做"},
	RejectTitle:        {"Reject without a reason", "不说明理由地拒绝"},
	Reject:             {"Reject", "拒绝"},
	AlwaysFor:          {"Always for %[1]s", "以后对 %[1]s 都允许"},
	AlwaysForWords:     {"Always for %[1]s …", "以后对 %[1]s … 都允许"},
	AlwaysExactly:      {"Always for exactly this", "以后对完全相同的请求都允许"},
	InstructionTooLong: {"The instruction is %[1]d bytes; the limit is %[2]d KiB.", "说明有 %[1]d 字节，上限是 %[2]d KiB。"},
	NotAnswered:        {"Not answered: %[1]s.", "未能回答：%[1]s。"},

	RunFunction:    {"Run a function", "运行函数"},
	RunNamed:       {"Run %[1]s", "运行 %[1]s"},
	Run:            {"Run", "运行"},
	RunTitle:       {"Run (Enter)", "运行（Enter）"},
	ChooseFirst:    {"Choose a function first", "请先选择一个函数"},
	Close:          {"Close", "关闭"},
	CloseTitle:     {"Close the form (Esc)", "关闭表单（Esc）"},
	Function:       {"Function", "函数"},
	ChooseFunction: {"Choose a function…", "选择一个函数…"},
	NoFunctions:    {"No functions are available: add one under .parley/functions in the workspace.", "没有可用的函数：请在工作区的 .parley/functions 下添加。"},
	ChooseToRun:    {"Choose the function to run.", "选择要运行的函数。"},
	Loading:        {"Loading %[1]s…", "正在加载 %[1]s…"},
	NoParameters:   {"This function takes no parameters.", "这个函数没有参数。"},

	HintRange:      {"%[1]s–%[2]s", "%[1]s–%[2]s"},
	HintAtLeast:    {"at least %[1]s", "至少 %[1]s"},
	HintAtMost:     {"at most %[1]s", "至多 %[1]s"},
	HintWhole:      {"a whole number", "整数"},
	HintNumber:     {"a number", "数字"},
	HintChars:      {"%[1]d–%[2]d characters", "%[1]d–%[2]d 个字符"},
	HintCharsMin:   {"at least %[1]d characters", "至少 %[1]d 个字符"},
	HintCharsMax:   {"up to %[1]d characters", "最多 %[1]d 个字符"},
	HintPicks:      {"pick %[1]d–%[2]d", "选 %[1]d–%[2]d 项"},
	HintPicksExact: {"pick %[1]d", "选 %[1]d 项"},
	HintPicksMin:   {"pick at least %[1]d", "至少选 %[1]d 项"},
	HintPicksMax:   {"pick up to %[1]d", "最多选 %[1]d 项"},
	HintEmail:      {"an email address, name@example.com", "电子邮件地址，如 name@example.com"},
	HintURL:        {"a link, https://…", "链接，如 https://…"},
	HintDate:       {"a date", "日期"},
	HintDateTime:   {"a date and time", "日期和时间"},
	HintSep:        {" · ", " · "},

	Message:           {"Message", "消息"},
	HintKeys:          {"Enter to send · Shift+Enter for a new line", "Enter 发送 · Shift+Enter 换行"},
	HintMenu:          {"↑↓ to choose · Enter to pick · Esc to close", "↑↓ 选择 · Enter 选定 · Esc 关闭"},
	HintTouch:         {"Send with the button", "用按钮发送"},
	SendTitle:         {"Send (Enter)", "发送（Enter）"},
	Queue:             {"Queue", "排队"},
	QueueTitle:        {"Queue after the running turn (Enter)", "排在当前这一轮之后（Enter）"},
	Steer:             {"Steer", "插话"},
	QueuedPrompts:     {"Queued prompts", "排队的消息"},
	QueuedLater:       {"Waiting for the current turn", "等待当前这一轮结束"},
	QueuedSteer:       {"Steering: goes to the current turn", "插话：交给当前这一轮"},
	QueueEdit:         {"Edit", "编辑"},
	QueueEditLabel:    {"Edit this queued prompt", "编辑这条排队的消息"},
	QueueRemove:       {"Remove", "移除"},
	QueueRemoveLabel:  {"Remove this queued prompt", "移除这条排队的消息"},
	QueueEditField:    {"The queued prompt (Enter saves, Escape cancels)", "排队的消息（Enter 保存，Escape 取消）"},
	QueueSave:         {"Save", "保存"},
	QueueCancel:       {"Cancel", "取消"},
	MenuCommands:      {"Commands", "命令"},
	MenuSkills:        {"Skills", "技能"},
	MenuFunctions:     {"Functions", "函数"},
	MenuSessions:      {"Sessions", "会话"},
	MenuFiles:         {"Files", "文件"},
	MenuFilesSessions: {"Files and sessions", "文件和会话"},
	MenuAll:           {"Commands, skills and functions", "命令、技能和函数"},
	MenuShown:         {"%[1]d suggestions", "%[1]d 个建议"},
	MenuClosed:        {"Suggestions closed", "建议已关闭"},
	KindFunction:      {"Function", "函数"},
	KindSkill:         {"Skill", "技能"},
	KindFile:          {"File", "文件"},
	KindFolder:        {"Folder", "文件夹"},
	KindSession:       {"Session", "会话"},
	UntitledSession:   {"Untitled session", "未命名会话"},
	HintRunning:       {"A turn is running: Enter queues · Alt+Enter steers", "这一轮正在运行：Enter 排队 · Alt+Enter 插话"},
	HintTouchRunning:  {"A turn is running: Queue waits for it, Steer goes next", "这一轮正在运行：排队会等它结束，插话排在下一个"},
	SteerTitle:        {"Steer the running turn (Alt+Enter)", "给正在运行的这一轮插话（Alt+Enter）"},
}
