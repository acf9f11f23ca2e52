package model

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"parley/i18n"
	"parley/protocol"
	"parley/runtime/agent"
)

// errCut says a stream ended without a finish_reason: the server stopped mid-message.
var errCut = errors.New("the stream stopped before the message ended")

// errTooLong says the reply outgrew MaxReplyBytes and was cut there.
var errTooLong = errors.New("the reply is longer than Parley keeps of one message")

// answerOf is the server's answer to a failed request: its API error (a body that parsed as
// one), else its request error (any other failed status); neither when it got no answer.
func answerOf(err error) (*openai.APIError, *openai.RequestError) {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr, nil
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return nil, reqErr
	}
	return nil, nil
}

// status is the HTTP status of a failed request, 0 when it got no answer.
func status(err error) int {
	apiErr, reqErr := answerOf(err)
	if apiErr != nil {
		return apiErr.HTTPStatusCode
	}
	if reqErr != nil {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// serverText is what the server said about a failure, as text: its error message, or the
// start of its body.
func serverText(err error) string {
	apiErr, reqErr := answerOf(err)
	if apiErr != nil {
		return apiErr.Message
	}
	if reqErr != nil {
		if body := strings.TrimSpace(string(reqErr.Body)); body != "" {
			return clip(body, 500)
		}
		if reqErr.Err != nil {
			return reqErr.Err.Error()
		}
	}
	return ""
}

// failurePhrase words a failed generation for the thread, by its phrase (i18n): what
// happened, what to do, and what the server said. shown says whether any of the reply's
// text reached the thread: a cut stream says "what arrived is kept above" only then (QA
// round 25: it said so over a reply of a call's arguments alone, with nothing above).
// failureText is its English.
func failurePhrase(err error, cfg Config, shown bool) protocol.Phrase {
	p := failureWords(err, cfg, shown)
	// What a server says is stored in the log and shown in the thread: the key it was sent
	// is not (QA round 26: a proxy's 401 quoted "Incorrect API key provided: Bearer sk-…").
	for i, a := range p.Args {
		p.Args[i] = redactKey(a, cfg.Key)
	}
	return p
}

// redactKey puts "[the key]" where text holds key.
func redactKey(text, key string) string {
	if len(strings.TrimSpace(key)) < 8 { // too short to tell from words
		return text
	}
	return strings.ReplaceAll(text, key, "[the key]")
}

func failureWords(err error, cfg Config, shown bool) protocol.Phrase {
	said := serverText(err)
	with := func(code string, args ...string) protocol.Phrase { return i18n.Said(phrase(code, args...), said) }
	code := status(err)
	n := strconv.Itoa(code)
	switch {
	case errors.Is(err, errTooLong) && !shown:
		return phrase("model_call_too_long", strconv.Itoa(MaxReplyBytes>>10)+" KiB")
	case errors.Is(err, errTooLong):
		return phrase("model_reply_too_long", strconv.Itoa(MaxReplyBytes>>10)+" KiB")
	case errors.Is(err, errCut):
		code := "model_stream_cut"
		if !shown {
			code = "model_stream_cut_bare"
		}
		if detail := strings.TrimPrefix(strings.TrimPrefix(err.Error(), errCut.Error()), ": "); detail != "" {
			return phrase(code+"_why", detail)
		}
		return phrase(code)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return with("model_refused_key", cfg.URL, n)
	case code == http.StatusTooManyRequests:
		var asked askedWait
		if errors.As(err, &asked) {
			// A wait too long to wait out here: the notice says it (QA round 21: "wait a
			// moment" for a server that asked two minutes).
			return with("model_rate_limited_for", cfg.URL, strconv.Itoa(int((asked.wait+time.Second-1)/time.Second)))
		}
		return with("model_rate_limited", cfg.URL)
	case code == http.StatusNotFound:
		return with("model_not_found", cfg.URL, cfg.Model)
	case contextFull(err, said):
		return with("model_context_full", cfg.URL)
	case code >= 500:
		return with("model_failed_5xx", cfg.URL, n)
	case code != 0:
		return with("model_refused", cfg.URL, n)
	case errors.Is(err, syscall.ECONNREFUSED):
		return phrase("model_no_conn", cfg.URL)
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return phrase("model_no_reach", cfg.URL, err.Error())
	}
	if said != "" {
		return phrase("model_failed", said)
	}
	return phrase("model_failed", err.Error())
}

func failureText(err error, cfg Config, shown bool) string {
	p := failurePhrase(err, cfg, shown)
	text, _ := i18n.English.Phrase(p.Code, p.Args)
	return text
}

// contextFull reports whether a refused request was too long for the model's context
// window: OpenAI's code context_length_exceeded, or the words vLLM, llama.cpp and others use.
func contextFull(err error, said string) bool {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && fmt.Sprint(apiErr.Code) == "context_length_exceeded" {
		return true
	}
	s := strings.ToLower(said)
	return status(err) == http.StatusBadRequest && strings.Contains(s, "context") &&
		(strings.Contains(s, "length") || strings.Contains(s, "size") || strings.Contains(s, "window") || strings.Contains(s, "exceed"))
}

// phrase is a notice's phrase; its English is the catalogue's (i18n/server_words.go).
func phrase(code string, args ...string) protocol.Phrase {
	return protocol.Phrase{Code: code, Args: args}
}

// headerDoer remembers the headers of the last failed response, which go-openai's errors do
// not keep: a 429's Retry-After is read from them.
type headerDoer struct {
	client *http.Client
	// onRead, when set, is told of every read of the response that brought bytes, the
	// headers' arrival included: the stream's idle limit starts again.
	onRead func()
	mu     sync.Mutex
	failed http.Header
}

func (d *headerDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(req)
	if err == nil && resp.StatusCode >= 400 {
		d.mu.Lock()
		d.failed = resp.Header.Clone()
		d.mu.Unlock()
	}
	if err == nil && d.onRead != nil {
		d.onRead()
		resp.Body = &readsTold{ReadCloser: resp.Body, told: d.onRead}
	}
	return resp, err
}

// readsTold is a response body that tells of each read that brought bytes.
type readsTold struct {
	io.ReadCloser
	told func()
}

func (r *readsTold) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.told()
	}
	return n, err
}

// stalled ends a request that went its idle limit without a byte from the model server.
type stalled struct{ after time.Duration }

func (s stalled) Error() string {
	return "the model server sent nothing for " + agent.SilenceWords(s.after)
}

// askedWait is a 429 whose Retry-After asked a wait the loop does not wait out (too long,
// or a tool of the turn already ran).
type askedWait struct {
	error
	wait time.Duration
}

func (e askedWait) Unwrap() error { return e.error }

// retryAfter is the delay the last failed response asked for (seconds or an HTTP date), and
// whether it gave one.
func (d *headerDoer) retryAfter(now time.Time) (time.Duration, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	v := strings.TrimSpace(d.failed.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
