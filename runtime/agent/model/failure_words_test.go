package model

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"parley/i18n"
)

// TestFailureNoticesByPhrase: each failed generation is a notice with a phrase code, whose
// English is the notice's text and whose Chinese a Chinese page shows; the server's own
// words ride along as they are.
func TestFailureNoticesByPhrase(t *testing.T) {
	cfg := Config{URL: "http://127.0.0.1:9/v1", Model: "m"}
	api := func(code int, msg string, c any) error {
		return &openai.APIError{HTTPStatusCode: code, Message: msg, Code: c}
	}
	for _, tt := range []struct {
		err  error
		bare bool // none of the reply's text reached the thread
		code string
		en   string
		zh   string
	}{
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true, "model_no_conn",
			"The model server at http://127.0.0.1:9/v1 cannot be reached (connection refused): is it running? Start it, then send your prompt again.",
			"无法连接 http://127.0.0.1:9/v1 的模型服务器（连接被拒绝）：它在运行吗？启动它，然后再次发送提示。"},
		{api(401, "bad key", nil), false, "model_refused_key+said",
			"The model server at http://127.0.0.1:9/v1 refused the request (401): check the key in PARLEY_MODEL_KEY or OPENAI_API_KEY. The server said: “bad key”",
			"http://127.0.0.1:9/v1 的模型服务器拒绝了请求（401）：请检查 PARLEY_MODEL_KEY 或 OPENAI_API_KEY 中的密钥。服务器说：“bad key”"},
		{api(503, "", nil), false, "model_failed_5xx", "The model server at http://127.0.0.1:9/v1 failed (503). Send your prompt again to retry.",
			"http://127.0.0.1:9/v1 的模型服务器出错了（503）。再次发送提示即可重试。"},
		{api(400, "This model's maximum context length is 8192 tokens", "context_length_exceeded"), false, "model_context_full+said",
			"The conversation no longer fits the context window of the model at http://127.0.0.1:9/v1: start a new session, or pick a model with a larger window. The server said: “This model's maximum context length is 8192 tokens”",
			"对话已超出 http://127.0.0.1:9/v1 上模型的上下文窗口：请新建一个会话，或选择窗口更大的模型。服务器说：“This model's maximum context length is 8192 tokens”"},
		{api(400, "the request exceeds the available context size, try increasing it", nil), false, "model_context_full+said", "", ""},
		{api(400, "unknown field", nil), false, "model_refused+said",
			"The model server at http://127.0.0.1:9/v1 refused the request (400). The server said: “unknown field”", ""},
		{errCut, false, "model_stream_cut", "The model's stream stopped before its message ended; what arrived is kept above. Send your prompt again to retry.",
			"模型的输出流在消息结束前停止了；已收到的内容保留在上方。再次发送提示即可重试。"},
		{fmt.Errorf("%w: %v", errCut, "no data for 30 s"), true, "model_stream_cut_bare_why",
			"The model's stream stopped before any of its message arrived (no data for 30 s). Send your prompt again to retry.", ""},
		{errTooLong, false, "model_reply_too_long",
			"The model's reply was cut at 256 KiB, the most Parley keeps of one message; what arrived is kept above. Ask for a shorter answer, or for it in parts.", ""},
		{errTooLong, true, "model_call_too_long",
			"The model's tool call was cut at 256 KiB, the most Parley keeps of one message, so it did not run. Ask for a smaller change, or for it in parts.",
			"模型的工具调用在 256 KiB 处被截断了，这是 Parley 为一条消息保留的上限，所以它没有运行。请要求更小的改动，或分几部分进行。"},
		{errors.New("boom"), false, "model_failed", "The model failed: boom", "模型出错了：boom"},
	} {
		p := failurePhrase(tt.err, cfg, !tt.bare)
		if p.Code != tt.code {
			t.Errorf("%v: code %q, want %q", tt.err, p.Code, tt.code)
			continue
		}
		en, _ := i18n.English.Phrase(p.Code, p.Args)
		if en != failureText(tt.err, cfg, !tt.bare) || tt.en != "" && en != tt.en {
			t.Errorf("%v: English %q, want %q", tt.err, en, tt.en)
		}
		if zh, ok := i18n.Chinese.Phrase(p.Code, p.Args); !ok || tt.zh != "" && zh != tt.zh {
			t.Errorf("%v: Chinese %q, want %q", tt.err, zh, tt.zh)
		}
	}
}

// TestTheKeyIsNeverSaidBack: a server that quotes the key it was sent (a proxy's 401 does)
// is stored and shown without it (QA round 26).
func TestTheKeyIsNeverSaidBack(t *testing.T) {
	cfg := Config{URL: "http://127.0.0.1:9/v1", Model: "m", Key: "sk-fake-SECRET-KEY-12345"}
	err := &openai.APIError{HTTPStatusCode: 401, Message: "Incorrect API key provided: Bearer sk-fake-SECRET-KEY-12345. You can find your key at …"}
	text := failureText(err, cfg, false)
	if strings.Contains(text, cfg.Key) || !strings.Contains(text, "Incorrect API key provided: Bearer [the key].") {
		t.Errorf("said: %q", text)
	}
	mid := fmt.Errorf("stream: %w", &openai.APIError{Message: "upstream rejected sk-fake-SECRET-KEY-12345"})
	if text := failureText(mid, cfg, true); strings.Contains(text, cfg.Key) {
		t.Errorf("said mid-stream: %q", text)
	}
}
