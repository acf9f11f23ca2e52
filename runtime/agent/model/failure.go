package model

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// errCut says a stream ended without a finish_reason: the server stopped mid-message.
var errCut = errors.New("the stream stopped before the message ended")

// status is the HTTP status of a failed request, 0 when it got no answer.
func status(err error) int {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		return apiErr.HTTPStatusCode
	case errors.As(err, &reqErr):
		return reqErr.HTTPStatusCode
	}
	return 0
}

// serverText is what the server said about a failure, as text: its error message, or the
// start of its body.
func serverText(err error) string {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		return apiErr.Message
	case errors.As(err, &reqErr):
		if body := strings.TrimSpace(string(reqErr.Body)); body != "" {
			return clip(body, 500)
		}
		if reqErr.Err != nil {
			return reqErr.Err.Error()
		}
	}
	return ""
}

// failureText words a failed generation for the thread: what happened, what to do, and
// what the server said, as text.
func failureText(err error, cfg Config) string {
	said := serverText(err)
	with := func(s string) string {
		if said != "" {
			s += " The server said: “" + said + "”"
		}
		return s
	}
	code := status(err)
	switch {
	case errors.Is(err, errCut):
		why := ""
		if detail := strings.TrimPrefix(strings.TrimPrefix(err.Error(), errCut.Error()), ": "); detail != "" {
			why = " (" + detail + ")"
		}
		return "The model's stream stopped before its message ended" + why + "; what arrived is kept above. " +
			"Send your prompt again to retry."
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return with(fmt.Sprintf("The model server at %s refused the request (%d): check the key in PARLEY_MODEL_KEY or OPENAI_API_KEY.", cfg.URL, code))
	case code == http.StatusTooManyRequests:
		return with(fmt.Sprintf("The model server at %s is rate-limiting requests (429). Wait a moment and send your prompt again.", cfg.URL))
	case code == http.StatusNotFound:
		return with(fmt.Sprintf("The model server at %s has no model %q or no Chat Completions endpoint there (404): check -model and -model-url (it usually ends in /v1).", cfg.URL, cfg.Model))
	case code >= 500:
		return with(fmt.Sprintf("The model server at %s failed (%d). Send your prompt again to retry.", cfg.URL, code))
	case code != 0:
		return with(fmt.Sprintf("The model server at %s refused the request (%d).", cfg.URL, code))
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("The model server at %s cannot be reached (connection refused): is it running? Start it, then send your prompt again.", cfg.URL)
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return fmt.Sprintf("The model server at %s cannot be reached: %v. Check -model-url, then send your prompt again.", cfg.URL, err)
	}
	if said != "" {
		return "The model failed: " + said
	}
	return "The model failed: " + err.Error()
}

// headerDoer remembers the headers of the last failed response, which go-openai's errors do
// not keep: a 429's Retry-After is read from them.
type headerDoer struct {
	client *http.Client
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
	return resp, err
}

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
