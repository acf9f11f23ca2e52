package i18n

// The views' messages (docs/i18n.md): the thread, the sidebar, the hero, the banners, the
// approvals and MCP pages, the controls row, and the server's errors by their code. They
// follow the composer's messages (catalogue.go), so an id never changes meaning.
const (
	// The thread.
	ThreadLabel Msg = SteerTitle + 1 + iota
	ConversationLabel
	ShowEarlier     // no count
	ShowEarlierMore // %[1]d more
	AgentWorking
	Stop
	StopTitle
	SaidYou
	SaidParley
	SaidScript
	SaidAgent
	FromParley
	FromScript
	InterruptedMessage
	ShowCode
	ShowCodeLines // %[1]d
	HideCode
	ShowLess
	Copy
	Copied
	CopyFailed
	CopyMessage
	LayoutTime     // a Go time layout: a message's time in full
	LayoutDateTime // a Go time layout: a session's start in full
	LayoutDay      // a Go time layout: a date this year
	LayoutDayYear  // a Go time layout: a date of another year

	// The thread's cards.
	RunRunning
	RunWaiting // a run that waits on the decision it asked
	RunDone
	RunFailed
	RunStopped
	RunInterrupted
	KindApproval
	KindQuestion
	WaitingBelow
	WaitingBelowLabel // %[1]s: kind, %[2]s: title
	AnswerBelow
	WaitingServer // a kept card's question: the composer does not hold it yet
	WaitingServerShort
	WaitingServerLabel // %[1]s: kind, %[2]s: title
	CardSeveralChoices
	CardSeveralQuestions
	// Their words on the approvals screen, where no composer is below: the thread is.
	CardSeveralChoicesElsewhere
	CardSeveralQuestionsElsewhere
	AnswerInThread
	TypeANumber
	ToolCall // %[1]s
	OutputSoFar
	ProgressLabel
	BytesNotShown // %[1]d
	BytesAbove    // %[1]d
	MoreOutput
	Allow
	AnswerRequest // %[1]d, %[2]s its command
	AllMarkedAllow
	ReasonIfReject
	ReasonIfRejectOptional
	RequestRetry
	RequestRetryTitle
	RetryRequested
	RetryNotRequested // %[1]s
	RunAgain
	RunAgainTitle
	RanAgain
	OutcomeRejected
	OutcomeRejectedWith // %[1]s
	OutcomeStopped
	OutcomeInterrupted
	OutcomeNoResult

	// Times.
	JustNow
	MinAgo  // %[1]d
	HAgo    // %[1]d
	SAgo    // %[1]d
	DaysAgo // %[1]d
	YesterdayWhen
	UnknownTime
	NoDeadline
	TimingOutNow
	TimesOutS   // %[1]d
	TimesOutMin // %[1]d
	TimesOutH   // %[1]d

	// The sidebar.
	Sessions
	NewSession
	Today
	Yesterday
	Earlier
	Rename
	RenameNamed // %[1]s
	NewTitleFor // %[1]s
	Save
	Cancel
	Archive
	ArchiveNamed    // %[1]s
	ArchiveQuestion // %[1]s
	ArchiveConfirm  // %[1]s
	Keep
	ApprovalsWord
	WaitsForYou    // %[1]d
	ApprovalsWaits // %[1]s: WaitsForYou
	NotifyOn
	NotifyIsOn
	NotifyOff
	NotifyBlocked

	// The hero and the banners.
	HeroTitle
	HeroLine
	WorkspaceLabel
	WaysToStart
	HelpDetail
	RunStarter // %[1]s
	FunctionOfWorkspace
	AskTheAgent
	StarterWhatIs
	StarterWhatIsText
	StarterChanged
	StarterChangedText
	PlaceholderHero
	PlaceholderSession
	Offline
	OfflineText
	NextTryIn // %[1]s
	RetryNow
	Reconnecting // %[1]s error, %[2]s delay
	Connecting
	Live
	Updated
	Reload
	NeedsLink
	NeedsLinkText
	SessionNotFound
	SessionNotFoundText
	StartNewSession
	NoSessionToWrite

	// Notices: what did not go through, and why (%[1]s).
	CouldNotListSessions
	NotRenamed
	NotArchived
	NotAnsweredNotice
	NotAnsweredUpToDate
	NotWithdrawn
	NotStopped
	NotSent
	NoSessionToType
	CouldNotLoadEarlier
	NoWorkspace

	// The approvals page.
	ApprovalsTitle
	TabQueue
	TabQueueN // %[1]d
	TabHistory
	TabGrants
	TabGrantsN // %[1]d
	KeysHelp
	NothingWaiting
	PendingList
	AskedIn // %[1]s session, %[2]s message
	EntryEndedElsewhere
	ConfirmEndedElsewhere // %[1]s what was asked
	EntryAnswered
	NothingBefore
	YouColon
	ThreadWhenAsked
	WhoScript
	WhoParley
	WhoAgent
	ConfirmApproval
	ApproveQuestion // %[1]s
	Approve
	ConfirmRejection
	RejectQuestion // %[1]s
	ReasonForRejecting
	ReasonPlaceholder
	RejectWord
	SessionFilter
	AllSessions
	WorkspaceFilter
	AllWorkspaces
	OutcomeFilter
	AnyOutcome
	NoHistory
	ShowOlder
	HistApproved
	HistRejected
	HistAnswered
	HistTimedOut
	HistAborted
	GrantCreated // %[1]s scope, %[2]s state
	RevokedSince
	StillInForce
	NoGrants
	NeverUsed
	LastUsed // %[1]s
	Revoke
	RevokeNamed         // %[1]s
	GrantIn             // %[1]s workspace, %[2]s ago
	CouldNotReadQueue   // %[1]s why, %[2]s retry
	CouldNotReadHistory // %[1]s
	CouldNotListGrants  // %[1]s
	NotRevoked          // %[1]s
	Revoked             // %[1]s
	Back

	// The MCP page.
	MCPReconnectAll
	MCPLoading
	MCPReconnect
	MCPReconnectNamed    // %[1]s
	MCPRestarted         // %[1]d
	MCPToolsOf           // %[1]s
	MCPCouldNotList      // %[1]s
	MCPCouldNotReconnect // %[1]s

	// The controls row.
	ModelWord
	ModelNone
	ModelIs         // %[1]s
	ModelListFailed // %[1]s
	Models
	ModelNotChanged // %[1]s
	ModelsFailed    // %[1]s
	PermissionMode
	ModeNotChanged // %[1]s
	TokensUsed     // %[1]s

	// The server's errors, by code; an unknown code shows the server's own words.
	ErrUnreachable
	ErrNoSession
	ErrNoDecision
	ErrAlreadyAnswered
	ErrNotWaiting
	ErrNoGrant
	ErrBusy
	ErrInternal
	ErrUnauthorized
	ErrUnavailable
	ErrTooLarge
	ErrNoWorkspace
	ErrNoFunction
	ErrNoModel
	ErrNotificationsOff

	// Added later: the thread's cards.
	YourAnswer
	ToolErrorWord
	ProgressOf // %[1]s of %[2]s

	// Added later: the approvals page.
	InWorkspace // %[1]s
	AskedAgo    // %[1]s ago, %[2]s deadline
	EndedAgo    // %[1]s
	ItsSession

	// Added later: the MCP page and the controls row.
	BackToChat
	MCPServers
	MCPFileProblem // %[1]s
	MCPEmpty
	MCPServerNamed // %[1]s
	MCPStderr
	MCPReadOnly
	MCPFrom // %[1]s
	MCPStarting
	MCPReady
	MCPFailed
	MCPCrashed
	MCPStopped
	ModelOffline
	ModelOfflineSR
	RingOf     // %[1]s used, %[2]s window, %[3]s the share used ("3%")
	WindowFrom // %[1]s the ring's label, %[2]s where the window comes from
	FromEndpoint
	FromFlag
	ModeAsk
	ModeReads
	ModeEdits
	ModeAskDesc
	ModeReadsDesc
	ModeEditsDesc

	// Added later: outcomes in words.
	OutcomeDeclined
	OutcomeDeclinedWith // %[1]s
	OutcomeAnswered
	OutcomeAnsweredEmpty
	OutcomeWithdrawn
	OutcomeNoAnswerInTime
	OutcomeEndedRestart

	// Added later: a batch in the composer.
	BatchRequests // %[1]d
	ConnectionClosed

	// Added later: the input bar's notices of a send that did not go through.
	NotSentCanceled
	NotSentWhy // %[1]s
	NotSentRef // %[1]s
	WhyUnchecked
	WhyNoOwner
	WhySendFailed
	TextRestored
	TextKept // %[1]s: the unsent text
	NotEdited

	// The outbox: prompts the server has not stored yet, and the one offline strip.
	UnsentWaiting
	UnsentRefused // %[1]s why
	UnsentCancel
	UnsentCancelTitle
	OfflineWhy     // %[1]s why
	ReconnectingIn // %[1]s delay
	ReconnectingNow

	// Parley's own messages in the log, by their phrase code (phrases.go).
	PhraseOfflineReply // %[1]s the prompt's first line
	PhraseTurnInterrupted

	OfflineNoWhy // the offline strip when nothing more is known than that the server is away

	// The sidebar's archived sessions.
	ArchivedWord
	ArchivedNone
	ArchivedLoading
	Restore
	RestoreNamed      // %[1]s
	NotRestored       // %[1]s why
	NotListedArchived // %[1]s why
	ArchivedHere
	HistDeclined

	// The queue dock: a prompt being edited began before the change was saved.
	EditStartedFirst // %[1]s the prompt as it ran

	// An approval's outcome, as a past fact.
	OutcomeApproved
	OutcomeApprovedWith // %[1]s the reach granted ("always for this command")

	// A run card's title.
	RunScript
	RunExample       // %[1]s the example's slug
	RunFunctionTitle // %[1]s the function's title or name
	// SessionHelp names a session whose first prompt was /help (protocol.TitleFrom).
	SessionHelp

	// A decision's thread card while the person set it aside to chat.
	SetAsideBelow
	SetAsideShort
	SetAsideLabel // %[1]s: kind, %[2]s: title

	// A session's workspace, in its header and its row when there are several.
	WorkspaceNamed // %[1]s the workspace's name

	lastMsg = WorkspaceNamed
)

// Last is the last message id (the tests walk every id up to it).
const Last = lastThreadWord

var views = map[Msg][nLocales]string{
	ThreadLabel:        {"Thread", "对话线程"},
	ConversationLabel:  {"Conversation", "对话"},
	ShowEarlier:        {"Show earlier messages", "显示更早的消息"},
	ShowEarlierMore:    {"Show earlier messages (%[1]d more)", "显示更早的消息（还有 %[1]d 条）"},
	AgentWorking:       {"The agent is working…", "智能体正在工作…"},
	Stop:               {"Stop", "停止"},
	StopTitle:          {"Stop the running turn", "停止当前这一轮"},
	SaidYou:            {"You said:", "你说："},
	SaidParley:         {"Parley said:", "Parley 说："},
	SaidScript:         {"The script said:", "脚本说："},
	SaidAgent:          {"The agent said:", "智能体说："},
	FromParley:         {"Parley", "Parley"},
	FromScript:         {"Script", "脚本"},
	InterruptedMessage: {"Interrupted: the server stopped before this message ended", "已中断：服务器在这条消息结束前停止了"},
	ShowCode:           {"Show code", "显示代码"},
	ShowCodeLines:      {"Show code (%[1]d lines)", "显示代码（%[1]d 行）"},
	HideCode:           {"Hide code", "隐藏代码"},
	ShowLess:           {"Show less", "收起"},
	Copy:               {"Copy", "复制"},
	Copied:             {"Copied", "已复制"},
	CopyFailed:         {"Copy failed", "复制失败"},
	CopyMessage:        {"Copy message", "复制消息"},
	LayoutTime:         {"Monday 2 January 2006, 15:04:05", "2006年1月2日 15:04:05"},
	LayoutDateTime:     {"Monday 2 January 2006, 15:04", "2006年1月2日 15:04"},
	LayoutDay:          {"2 Jan", "1月2日"},
	LayoutDayYear:      {"2 Jan 2006", "2006年1月2日"},

	RunRunning:                    {"running…", "运行中…"},
	RunWaiting:                    {"waiting for you", "等待你回答"},
	RunDone:                       {"done", "完成"},
	RunFailed:                     {"failed", "失败"},
	RunStopped:                    {"stopped", "已停止"},
	RunInterrupted:                {"interrupted", "已中断"},
	KindApproval:                  {"Approval", "审批"},
	KindQuestion:                  {"Question", "提问"},
	WaitingBelow:                  {"Waiting for your answer below", "等待你在下方回答"},
	WaitingBelowLabel:             {"%[1]s: %[2]s. Waiting for your answer below: press Enter to go there.", "%[1]s：%[2]s。等待你在下方回答：按 Enter 前往。"},
	AnswerBelow:                   {"Answer below", "在下方回答"},
	WaitingServer:                 {"Waiting: it can be answered once Parley's server is reached", "等待中：连上 Parley 的服务器后即可回答"},
	WaitingServerShort:            {"Waiting for the server", "等待服务器"},
	WaitingServerLabel:            {"%[1]s: %[2]s. Waiting: it can be answered once Parley's server is reached.", "%[1]s：%[2]s。等待中：连上 Parley 的服务器后即可回答。"},
	CardSeveralChoices:            {"This question takes several choices: answer it in the composer below, or decline it here.", "这个问题可多选：请在下方输入框中回答，或在此拒绝。"},
	CardSeveralQuestions:          {"This form has several questions: answer it in the composer below, or decline it here.", "这张表单有多个问题：请在下方输入框中回答，或在此拒绝。"},
	CardSeveralChoicesElsewhere:   {"This question takes several choices: answer it in its thread, or decline it here.", "这个问题可多选：请在它的对话线程中回答，或在此拒绝。"},
	CardSeveralQuestionsElsewhere: {"This form has several questions: answer it in its thread, or decline it here.", "这张表单有多个问题：请在它的对话线程中回答，或在此拒绝。"},
	AnswerInThread:                {"Answer in its thread", "在对话线程中回答"},
	TypeANumber:                   {"Type a number.", "请输入数字。"},
	ToolCall:                      {"Tool call: %[1]s", "工具调用：%[1]s"},
	OutputSoFar:                   {"Output so far", "目前的输出"},
	ProgressLabel:                 {"Progress", "进度"},
	BytesNotShown:                 {"… %[1]d bytes not shown …", "… 未显示 %[1]d 字节 …"},
	BytesAbove:                    {"… %[1]d bytes above …", "… 上方还有 %[1]d 字节 …"},
	MoreOutput:                    {"… more output than the thread shows: the result holds it", "… 输出超出线程可显示的长度：完整内容见结果"},
	Allow:                         {"Allow", "允许"},
	AnswerRequest:                 {"Answer request %[1]d: %[2]s", "回答第 %[1]d 个请求：%[2]s"},
	AllMarkedAllow:                {"Every request is marked Allow: mark the ones to reject, or approve.", "每个请求都标记为允许：请标记要拒绝的，或者批准。"},
	ReasonIfReject:                {"Reason, if you reject", "拒绝的理由"},
	ReasonIfRejectOptional:        {"Reason, if you reject (optional)", "拒绝的理由（可选）"},
	RequestRetry:                  {"Request retry", "请求重试"},
	RequestRetryTitle:             {"Ask the agent to make the same request again; it is asked like any other", "让智能体再发一次同样的请求；它会像其他请求一样询问你"},
	RetryRequested:                {"Retry requested: the agent was asked to make the request again.", "已请求重试：智能体会再发一次这个请求。"},
	RetryNotRequested:             {"Retry not requested: %[1]s.", "未能请求重试：%[1]s。"},
	RunAgain:                      {"Run again", "再次运行"},
	RunAgainTitle:                 {"Send the command that asked this again: it runs from its start and asks again", "再次发送提出这个请求的命令：它会从头运行并再次询问"},
	RanAgain:                      {"Sent again: the command runs from its start.", "已再次发送：命令会从头运行。"},
	OutcomeRejected:               {"Rejected", "已拒绝"},
	OutcomeApproved:               {"Approved", "已批准"},
	RunScript:                     {"Script", "脚本"},
	RunExample:                    {"Example %[1]s", "示例 %[1]s"},
	RunFunctionTitle:              {"Function %[1]s", "函数 %[1]s"},
	SessionHelp:                   {"Help", "帮助"},
	OutcomeApprovedWith:           {"Approved, %[1]s", "已批准，%[1]s"},
	OutcomeRejectedWith:           {"Rejected: %[1]s", "已拒绝：%[1]s"},
	OutcomeStopped:                {"Stopped by you", "已由你停止"},
	OutcomeInterrupted:            {"Interrupted: the server stopped before it finished", "已中断：服务器在完成前停止了"},
	OutcomeNoResult:               {"No result: the turn ended before this call finished", "无结果：这一轮在调用完成前结束了"},

	JustNow:       {"just now", "刚刚"},
	MinAgo:        {"%[1]d min ago", "%[1]d 分钟前"},
	HAgo:          {"%[1]d h ago", "%[1]d 小时前"},
	SAgo:          {"%[1]d s ago", "%[1]d 秒前"},
	DaysAgo:       {"%[1]d days ago", "%[1]d 天前"},
	YesterdayWhen: {"yesterday", "昨天"},
	UnknownTime:   {"at an unknown time", "时间未知"},
	NoDeadline:    {"no deadline", "无期限"},
	TimingOutNow:  {"timing out now", "即将超时"},
	TimesOutS:     {"times out in %[1]d s", "%[1]d 秒后超时"},
	TimesOutMin:   {"times out in %[1]d min", "%[1]d 分钟后超时"},
	TimesOutH:     {"times out in %[1]d h", "%[1]d 小时后超时"},

	Sessions:        {"Sessions", "会话"},
	NewSession:      {"New session", "新会话"},
	Today:           {"Today", "今天"},
	Yesterday:       {"Yesterday", "昨天"},
	Earlier:         {"Earlier", "更早"},
	Rename:          {"Rename", "重命名"},
	RenameNamed:     {"Rename %[1]s", "重命名 %[1]s"},
	NewTitleFor:     {"New title for %[1]s", "%[1]s 的新标题"},
	Save:            {"Save", "保存"},
	Cancel:          {"Cancel", "取消"},
	Archive:         {"Archive", "归档"},
	ArchiveNamed:    {"Archive %[1]s", "归档 %[1]s"},
	ArchiveQuestion: {"Archive %[1]s?", "归档 %[1]s？"},
	ArchiveConfirm:  {"Archive “%[1]s”? It leaves this list; its log stays on the server and its address still opens it.", "归档“%[1]s”？它会离开这个列表；日志仍保存在服务器上，原地址依然可以打开。"},
	Keep:            {"Keep", "保留"},
	ApprovalsWord:   {"Approvals", "审批"},
	WaitsForYou:     {"%[1]d decisions wait for you", "%[1]d 个决定等你处理"},
	ApprovalsWaits:  {"Approvals: %[1]s", "审批：%[1]s"},
	NotifyOn:        {"Notify me when an agent needs me", "智能体需要我时通知我"},
	NotifyIsOn:      {"Notifications are on for this device.", "此设备已开启通知。"},
	NotifyOff:       {"Turn off", "关闭"},
	NotifyBlocked:   {"Notifications are blocked in this browser's site settings.", "此浏览器的网站设置屏蔽了通知。"},

	HeroTitle:           {"What should we do?", "要做点什么？"},
	HeroLine:            {"Ask the agent, run a script or a function; every question and approval comes back to this box.", "问智能体、运行脚本或函数；每个提问和审批都会回到这个输入框。"},
	WorkspaceLabel:      {"Workspace", "工作区"},
	WaysToStart:         {"Ways to start", "开始的方式"},
	HelpDetail:          {"What Parley can do here", "Parley 在这里能做什么"},
	RunStarter:          {"Run %[1]s", "运行 %[1]s"},
	FunctionOfWorkspace: {"A function of this workspace", "此工作区的一个函数"},
	AskTheAgent:         {"Ask the agent", "问智能体"},
	StarterWhatIs:       {"What is in this workspace?", "这个工作区里有什么？"},
	StarterWhatIsText:   {"List what is in this workspace and tell me what it is for.", "列出这个工作区里的内容，并告诉我它是做什么的。"},
	StarterChanged:      {"What changed recently?", "最近改了什么？"},
	StarterChangedText:  {"Look at the recent changes in this workspace and summarise them.", "看看这个工作区最近的改动，并做个总结。"},
	PlaceholderHero:     {"Ask anything to start a session", "随便问点什么，开始一个会话"},
	PlaceholderSession:  {"Message the agent", "给智能体发消息"},
	Offline:             {"Offline. ", "离线。"},
	OfflineText:         {"Parley's server cannot be reached. What you type is kept on this device, and the page reconnects by itself.", "无法连接 Parley 的服务器。你输入的内容保存在此设备上，页面会自动重连。"},
	NextTryIn:           {" Next try in %[1]s.", "%[1]s 后重试。"},
	RetryNow:            {"Retry now", "立即重试"},
	UnsentWaiting:       {"Not sent yet — sends when Parley is reachable", "尚未发送——连上 Parley 后自动发送"},
	UnsentRefused:       {"Not sent: %[1]s", "未发送：%[1]s"},
	UnsentCancel:        {"Cancel", "取消"},
	UnsentCancelTitle:   {"Don't send it: its text goes back in the box", "不发送：文字放回输入框"},
	OfflineNoWhy:        {"Parley's server cannot be reached. What you type is kept on this device, and the prompts you send go when the server is back.", "无法连接 Parley 的服务器。你输入的内容保存在此设备上，发送的提示会在连上后自动发出。"},
	OfflineWhy:          {"Parley's server cannot be reached: %[1]s. What you type is kept on this device, and the prompts you send go when the server is back.", "无法连接 Parley 的服务器：%[1]s。你输入的内容保存在此设备上，发送的提示会在连上后自动发出。"},
	ReconnectingIn:      {" Reconnecting… next try in %[1]s.", "正在重连…%[1]s 后重试。"},
	ReconnectingNow:     {" Reconnecting…", "正在重连…"},
	Reconnecting:        {"Reconnecting… %[1]s; next try in %[2]s.", "正在重连… %[1]s；%[2]s 后重试。"},
	Connecting:          {"Connecting…", "正在连接…"},
	Live:                {"Live", "已连接"},
	Updated:             {"Parley was updated. ", "Parley 已更新。"},
	Reload:              {"Reload", "重新加载"},
	NeedsLink:           {"Parley needs its link", "Parley 需要它的链接"},
	NeedsLinkText:       {"This browser has no access yet. Open the address Parley printed in its terminal when it started: it ends with ?token= and the token. After that, this browser stays signed in.", "此浏览器还没有访问权限。请打开 Parley 启动时在终端打印的地址：它以 ?token= 加令牌结尾。之后此浏览器会保持登录。"},
	SessionNotFound:     {"Session not found", "找不到会话"},
	SessionNotFoundText: {"There is no session at this address: it may have been deleted, or the link is wrong.", "这个地址没有会话：它可能已被删除，或者链接有误。"},
	StartNewSession:     {"Start a new session", "开始新会话"},
	NoSessionToWrite:    {"No session here to write to: start a new session above", "这里没有可写入的会话：请在上方开始新会话"},

	CouldNotListSessions: {"Could not list sessions: %[1]s.", "无法列出会话：%[1]s。"},
	NotRenamed:           {"Not renamed: %[1]s.", "未重命名：%[1]s。"},
	NotArchived:          {"Not archived: %[1]s.", "未归档：%[1]s。"},
	NotAnsweredNotice:    {"Not answered: %[1]s.", "未回答：%[1]s。"},
	NotAnsweredUpToDate:  {"Not answered: %[1]s The queue is up to date.", "未回答：%[1]s 队列已是最新。"},
	NotWithdrawn:         {"Not withdrawn: %[1]s.", "未撤回：%[1]s。"},
	NotEdited:            {"Not edited: %[1]s.", "未修改：%[1]s。"},
	NotStopped:           {"Not stopped: %[1]s.", "未停止：%[1]s。"},
	NotSent:              {"Not sent: %[1]s.", "未发送：%[1]s。"},
	NoSessionToType:      {"No session to type in: %[1]s.", "没有可输入的会话：%[1]s。"},
	CouldNotLoadEarlier:  {"Could not load earlier messages: %[1]s", "无法加载更早的消息：%[1]s"},
	NoWorkspace:          {"the server has no workspace", "服务器没有工作区"},

	ApprovalsTitle:      {"Approvals", "审批"},
	TabQueue:            {"Queue", "队列"},
	TabQueueN:           {"Queue (%[1]d)", "队列（%[1]d）"},
	TabHistory:          {"History", "历史"},
	TabGrants:           {"Grants", "授权"},
	TabGrantsN:          {"Grants (%[1]d)", "授权（%[1]d）"},
	KeysHelp:            {"Keys: ↑ ↓ move between entries · Enter opens the thread · Alt+A approves · Alt+R rejects with a reason (each asks you to confirm; Esc cancels). Keys typed into a field stay in the field.", "按键：↑ ↓ 在条目间移动 · Enter 打开对话线程 · Alt+A 批准 · Alt+R 附理由拒绝（每次都会请你确认；Esc 取消）。在输入框中按的键只作用于输入框。"},
	NothingWaiting:      {"Nothing is waiting for you.", "没有等你处理的事项。"},
	PendingList:         {"Pending decisions, oldest first", "待处理的决定，最早的在前"},
	AskedIn:             {"Asked in %[1]s: %[2]s", "来自 %[1]s：%[2]s"},
	EntryEndedElsewhere: {"Ended elsewhere: this entry has left the queue", "已在别处结束：此条目已离开队列"},
	ConfirmEndedElsewhere: {"Answered elsewhere while you were confirming, so nothing was sent from here: %[1]s",
		"在你确认时已在别处回答，所以这里没有发送任何内容：%[1]s"},
	EntryAnswered:       {"Answered: this entry has left the queue", "已回答：此条目已离开队列"},
	NothingBefore:       {"Nothing was said in the thread before this request.", "这个请求之前，对话线程里没有任何内容。"},
	YouColon:            {"You: ", "你："},
	ThreadWhenAsked:     {"The thread when it was asked", "提问时的对话线程"},
	WhoScript:           {"Script", "脚本"},
	WhoParley:           {"Parley", "Parley"},
	WhoAgent:            {"Agent", "智能体"},
	ConfirmApproval:     {"Confirm approval", "确认批准"},
	ApproveQuestion:     {"Approve “%[1]s”?", "批准“%[1]s”？"},
	Approve:             {"Approve", "批准"},
	ConfirmRejection:    {"Confirm rejection", "确认拒绝"},
	RejectQuestion:      {"Reject “%[1]s”?", "拒绝“%[1]s”？"},
	ReasonForRejecting:  {"Reason for rejecting", "拒绝的理由"},
	ReasonPlaceholder:   {"Reason (the agent reads it)", "理由（智能体会读到）"},
	RejectWord:          {"Reject", "拒绝"},
	SessionFilter:       {"Session", "会话"},
	AllSessions:         {"All sessions", "全部会话"},
	WorkspaceFilter:     {"Workspace", "工作区"},
	AllWorkspaces:       {"All workspaces", "全部工作区"},
	OutcomeFilter:       {"Outcome", "结果"},
	AnyOutcome:          {"Any outcome", "任意结果"},
	NoHistory:           {"No decision has ended with these filters.", "按这些条件，没有已结束的决定。"},
	ShowOlder:           {"Show older decisions", "显示更早的决定"},
	HistApproved:        {"Approved", "已批准"},
	HistRejected:        {"Rejected", "已拒绝"},
	HistAnswered:        {"Answered", "已回答"},
	HistTimedOut:        {"Timed out", "已超时"},
	HistAborted:         {"Aborted", "已中止"},
	GrantCreated:        {"Created the grant “%[1]s” (%[2]s)", "创建了授权“%[1]s”（%[2]s）"},
	RevokedSince:        {"revoked since", "已被撤销"},
	StillInForce:        {"still in force", "仍然有效"},
	NoGrants:            {"No “always” grant: every request asks.", "没有“始终允许”的授权：每个请求都会询问。"},
	NeverUsed:           {"never used", "从未使用"},
	LastUsed:            {"last used %[1]s", "上次使用于 %[1]s"},
	Revoke:              {"Revoke", "撤销"},
	RevokeNamed:         {"Revoke %[1]s", "撤销 %[1]s"},
	GrantIn:             {"In %[1]s · made %[2]s in ", "在 %[1]s · 创建于 %[2]s，来自 "},
	CouldNotReadQueue:   {"Could not read the queue: %[1]s; trying again in %[2]s.", "无法读取队列：%[1]s；%[2]s 后重试。"},
	CouldNotReadHistory: {"Could not read the history: %[1]s.", "无法读取历史：%[1]s。"},
	CouldNotListGrants:  {"Could not list the grants: %[1]s.", "无法列出授权：%[1]s。"},
	NotRevoked:          {"Not revoked: %[1]s.", "未撤销：%[1]s。"},
	Revoked:             {"Revoked: %[1]s. The next such request asks again.", "已撤销：%[1]s。下次这样的请求会再次询问。"},
	Back:                {"Back", "返回"},

	MCPReconnectAll:      {"Read the files again and reconnect all", "重新读取文件并全部重连"},
	MCPLoading:           {"Loading…", "加载中…"},
	MCPReconnect:         {"Reconnect", "重连"},
	MCPReconnectNamed:    {"Reconnect %[1]s", "重连 %[1]s"},
	MCPRestarted:         {"Restarted %[1]d times", "已重启 %[1]d 次"},
	MCPToolsOf:           {"Tools of %[1]s", "%[1]s 的工具"},
	MCPCouldNotList:      {"Could not list the MCP servers: %[1]s", "无法列出 MCP 服务器：%[1]s"},
	MCPCouldNotReconnect: {"Could not reconnect: %[1]s", "无法重连：%[1]s"},

	ModelWord:       {"Model", "模型"},
	ModelNone:       {"No model is configured, so the offline agent answers: start Parley with -model-url and -model", "未配置模型，由离线智能体回答：用 -model-url 和 -model 启动 Parley"},
	ModelIs:         {"Model: %[1]s", "模型：%[1]s"},
	ModelListFailed: {" (the list could not be read: %[1]s)", "（无法读取列表：%[1]s）"},
	Models:          {"Models", "模型"},
	ModelNotChanged: {"Model not changed: %[1]s", "模型未更改：%[1]s"},
	ModelsFailed:    {"Models: %[1]s", "模型：%[1]s"},
	PermissionMode:  {"Permission mode", "权限模式"},
	ModeNotChanged:  {"Mode not changed: %[1]s", "模式未更改：%[1]s"},
	TokensUsed:      {"%[1]s tokens used", "已用 %[1]s 个 token"},

	ErrUnreachable:      {"the server is not reachable", "无法连接服务器"},
	ErrNoSession:        {"no such session: it may have been deleted, or the link is wrong", "没有这个会话：它可能已被删除，或者链接有误"},
	ErrNoDecision:       {"no such question in this session: the link is wrong, or it belongs to another session", "这个会话里没有这个问题：链接有误，或它属于另一个会话"},
	ErrAlreadyAnswered:  {"this decision was already answered", "这个决定已经回答过了"},
	ErrNotWaiting:       {"nothing is waiting for this answer any more", "已经没有在等这个回答了"},
	ErrNoGrant:          {"no such grant: it may already be revoked", "没有这个授权：它可能已被撤销"},
	ErrBusy:             {"the server is busy; try again in a moment", "服务器正忙，请稍后再试"},
	ErrInternal:         {"the server could not do this; it is logged, and retrying may help", "服务器无法完成此操作；已记录日志，重试也许有用"},
	ErrUnauthorized:     {"this browser has no access: open the address Parley printed", "此浏览器没有访问权限：请打开 Parley 打印的地址"},
	ErrUnavailable:      {"the server cannot do this right now", "服务器现在无法完成此操作"},
	ErrTooLarge:         {"the request is too large", "请求太大"},
	ErrNoWorkspace:      {"no such workspace", "没有这个工作区"},
	ErrNoFunction:       {"no such function in this workspace", "此工作区没有这个函数"},
	ErrNoModel:          {"no model is configured", "未配置模型"},
	ErrNotificationsOff: {"this server sends no notifications", "此服务器不发送通知"},

	YourAnswer:    {"Your answer", "你的回答"},
	ToolErrorWord: {"error", "出错"},
	ProgressOf:    {"%[1]s of %[2]s", "%[1]s / %[2]s"},

	InWorkspace: {" in %[1]s", "，位于 %[1]s"},
	AskedAgo:    {" · asked %[1]s · %[2]s", " · 提问于 %[1]s · %[2]s"},
	EndedAgo:    {" · ended %[1]s", " · 结束于 %[1]s"},
	ItsSession:  {"its session", "所在会话"},

	BackToChat:     {"← Back to the chat", "← 返回聊天"},
	MCPServers:     {"MCP servers", "MCP 服务器"},
	MCPFileProblem: {"A configuration file could not be read: %[1]s", "无法读取配置文件：%[1]s"},
	MCPEmpty:       {`No MCP servers are configured for this workspace. List them in .parley/mcp.json, or in the file -mcp-config names, as {"mcpServers": {"name": {"command": "…", "args": ["…"]}}}.`, `此工作区没有配置 MCP 服务器。请在 .parley/mcp.json 或 -mcp-config 指定的文件中列出，格式为 {"mcpServers": {"name": {"command": "…", "args": ["…"]}}}。`},
	MCPServerNamed: {"MCP server %[1]s", "MCP 服务器 %[1]s"},
	MCPStderr:      {"stderr (last lines)", "stderr（最后几行）"},
	MCPReadOnly:    {" (read-only)", "（只读）"},
	MCPFrom:        {"from %[1]s", "来自 %[1]s"},
	MCPStarting:    {"starting", "启动中"},
	MCPReady:       {"ready", "就绪"},
	MCPFailed:      {"failed", "失败"},
	MCPCrashed:     {"crashed", "已崩溃"},
	MCPStopped:     {"stopped", "已停止"},
	ModelOffline:   {"offline", "离线"},
	ModelOfflineSR: {": no model is configured, so the offline agent answers", "：未配置模型，由离线智能体回答"},
	RingOf:         {"%[1]s of %[2]s tokens (%[3]s)", "%[1]s / %[2]s 个 token（%[3]s）"},
	WindowFrom:     {"%[1]s. The window comes from %[2]s.", "%[1]s。窗口大小来自%[2]s。"},
	FromEndpoint:   {"the endpoint's model list", "端点的模型列表"},
	FromFlag:       {"-model-window (the model list does not say it)", " -model-window（模型列表没有给出）"},
	ModeAsk:        {"Ask for everything", "事事询问"},
	ModeReads:      {"Allow reads", "允许读取"},
	ModeEdits:      {"Allow edits", "允许编辑"},
	ModeAskDesc:    {"Every read, write and command of the agent asks first, unless an earlier “always” covers it", "智能体的每次读取、写入和命令都先询问，先前“始终允许”涵盖的除外"},
	ModeReadsDesc:  {"Reads inside the workspace run without asking; writes and commands ask", "工作区内的读取无需询问；写入和命令需询问"},
	ModeEditsDesc:  {"Reads and writes inside the workspace run without asking; commands ask", "工作区内的读取和写入无需询问；命令需询问"},

	OutcomeDeclined:       {"Declined", "已拒绝回答"},
	OutcomeDeclinedWith:   {"Declined: %[1]s", "已拒绝回答：%[1]s"},
	OutcomeAnswered:       {"Answered", "已回答"},
	OutcomeAnsweredEmpty:  {"Answered, every field left empty", "已回答，所有字段留空"},
	OutcomeWithdrawn:      {"Withdrawn: the question is no longer needed", "已撤回：不再需要这个问题"},
	OutcomeNoAnswerInTime: {"No answer in time", "未及时回答"},
	OutcomeEndedRestart:   {"Ended: the server restarted before it was answered", "已结束：服务器在回答前重启了"},

	BatchRequests:    {"%[1]d requests", "%[1]d 个请求"},
	ConnectionClosed: {"the connection closed", "连接已关闭"},

	NotSentCanceled: {"Not sent: canceled", "未发送：已取消"},
	NotSentWhy:      {"Not sent: %[1]s", "未发送：%[1]s"},
	NotSentRef:      {"Not sent: a reference could not be resolved (%[1]s)", "未发送：有一个引用无法解析（%[1]s）"},
	WhyUnchecked:    {"the command could not be checked", "无法检查这条命令"},
	WhyNoOwner:      {"no owner", "没有归属"},
	WhySendFailed:   {"the send failed", "发送失败"},
	TextRestored:    {". Your text is back in the composer.", "。你的文字已放回输入框。"},
	TextKept:        {". You kept typing, so your text was not put back; it was: %[1]s", "。你在继续输入，所以没有放回原文；原文是：%[1]s"},

	PhraseOfflineReply: {"No model is configured, so no agent can work on “%[1]s” yet. " +
		"This is Parley's offline agent; it gives the same answer to every prompt.\n\n" +
		"What you can do:\n" +
		"• Keep writing: your messages are stored in this session's log and survive reloads and restarts.\n" +
		"• Start another session from the sidebar.\n" +
		"• Point Parley at a model: any OpenAI-compatible Chat Completions server works, hosted or local. " +
		"For Ollama, start it and run `parley -model-url http://127.0.0.1:11434/v1 -model llama3.2`; " +
		"for another server, give its /v1 URL (llama.cpp's needs --jinja for tools). " +
		"The key comes from the environment only: PARLEY_MODEL_KEY or OPENAI_API_KEY.\n" +
		"• Run `parley -help` to see the flags this build offers.",
		"尚未配置模型，所以还没有智能体能处理“%[1]s”。" +
			"这是 Parley 的离线智能体：它对每条提示都给出同样的回答。\n\n" +
			"你可以：\n" +
			"• 继续写：你的消息保存在这个会话的日志里，重新加载或重启后仍在。\n" +
			"• 从侧栏开始另一个会话。\n" +
			"• 让 Parley 连接一个模型：任何兼容 OpenAI 的 Chat Completions 服务都可以，托管的或本地的都行。" +
			"对于 Ollama，启动它后运行 `parley -model-url http://127.0.0.1:11434/v1 -model llama3.2`；" +
			"对于其他服务，给出它的 /v1 地址（llama.cpp 的服务需要 --jinja 才能使用工具）。" +
			"密钥只从环境变量读取：PARLEY_MODEL_KEY 或 OPENAI_API_KEY。\n" +
			"• 运行 `parley -help` 查看这个版本提供的参数。"},
	PhraseTurnInterrupted: {"This turn was interrupted by a restart: the server running it stopped while the agent was " +
		"writing or running a tool. Send the prompt again, or a new one, to go on.",
		"这一轮被重启打断了：运行它的服务器在智能体写作或运行工具时停止了。再次发送这条提示，或发送一条新的提示，即可继续。"},
	ArchivedWord:      {"Archived", "已归档"},
	ArchivedNone:      {"No archived sessions", "没有已归档的会话"},
	ArchivedLoading:   {"Reading the archived sessions…", "正在读取已归档的会话…"},
	Restore:           {"Restore", "恢复"},
	RestoreNamed:      {"Restore %[1]s", "恢复 %[1]s"},
	NotRestored:       {"Not restored: %[1]s.", "未恢复：%[1]s。"},
	NotListedArchived: {"Could not read the archived sessions: %[1]s.", "无法读取已归档的会话：%[1]s。"},
	ArchivedHere:      {"Archived: not in the list", "已归档：不在列表中"},
	HistDeclined:      {"Declined", "已婉拒"},
	EditStartedFirst:  {"“%[1]s” began before your change was saved; your change is in the box.", "“%[1]s”在你的修改保存前已开始运行；你的修改已放回输入框。"},
	SetAsideBelow:     {"Set aside: click or press Enter to answer", "已搁置：点击或按 Enter 回答"},
	SetAsideShort:     {"Set aside: answer", "已搁置：回答"},
	SetAsideLabel:     {"%[1]s: %[2]s. Set aside: press Enter to answer it.", "%[1]s：%[2]s。已搁置：按 Enter 回答。"},
	WorkspaceNamed:    {"Workspace: %[1]s", "工作区：%[1]s"},

	// A batch with requests marked Reject (batch_words.go).
	BatchApproveSome:     {"Approve %[1]d, reject %[2]d", "批准 %[1]d 个，拒绝 %[2]d 个"},
	BatchApproveQuestion: {"Approve %[2]d and reject %[3]d of “%[1]s”, as marked?", "按标记批准“%[1]s”中的 %[2]d 个、拒绝 %[3]d 个？"},
}

var viewOnes = map[Msg][nLocales]string{
	WaitsForYou:     {"%[1]d decision waits for you", ""},
	DaysAgo:         {"%[1]d day ago", ""},
	ShowCodeLines:   {"Show code (%[1]d line)", ""},
	MCPRestarted:    {"Restarted %[1]d time", ""},
	BatchRequests:   {"%[1]d request", ""},
	ShowEarlierMore: {"Show earlier messages (%[1]d more)", ""},
}

// errorCodes maps the server's stable error codes (protocol.ErrorResponse.Code) to their
// message. A code not here shows the server's own text.
var errorCodes = map[string]Msg{
	"no_session":        ErrNoSession,
	"no_decision":       ErrNoDecision,
	"already_answered":  ErrAlreadyAnswered,
	"not_waiting":       ErrNotWaiting,
	"no_grant":          ErrNoGrant,
	"busy":              ErrBusy,
	"internal":          ErrInternal,
	"unauthorized":      ErrUnauthorized,
	"no_workspace":      ErrNoWorkspace,
	"no_function":       ErrNoFunction,
	"no_model":          ErrNoModel,
	"notifications_off": ErrNotificationsOff,
}

// Error words a server error by its code in l: a known code has its message, an unknown one
// (or none) keeps the server's English text.
func (l Locale) Error(code, text string) string {
	if l == English {
		return text
	}
	if s, ok := l.ended(text); ok && code == "already_answered" {
		return s // how the decision had ended
	}
	if st, ok := statusOf(text); ok && code == "" {
		if st == 429 {
			return l.T(ErrTooMany)
		}
		return l.T(ErrServerStatus, st)
	}
	if m, ok := errorCodes[code]; ok {
		return l.T(m)
	}
	return text
}

func init() {
	for m, s := range views {
		catalogue[m] = s
	}
	for m, s := range viewOnes {
		ones[m] = s
	}
}

// The polish of the seventh QA round's open findings (docs/qa-round7.md).
const (
	// A click on Approve with words typed for an approval: they go to the box.
	ApprovedWordsKept Msg = lastMoreWord + 1 + iota

	lastPolish = ApprovedWordsKept
)

func init() {
	catalogue[ApprovedWordsKept] = [nLocales]string{"Approved. Your words are back in the box below, to send or delete.", "已批准。你的文字已放回下方输入框，可发送或删除。"}
}
