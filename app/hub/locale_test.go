package hub

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/app/api"
	"parley/app/locale"
	"parley/i18n"
	"parley/machine/input"
	"parley/protocol"
)

// TestServerErrorsInTheLocale: a server error with a known code reads in the page's locale;
// an unknown code, and English, keep the server's own words.
func TestServerErrorsInTheLocale(t *testing.T) {
	known := &api.Error{Status: 404, ErrorResponse: protocol.ErrorResponse{Error: "no such session: it may have been deleted, or the link is wrong", Code: "no_session"}}
	unknown := &api.Error{Status: 400, ErrorResponse: protocol.ErrorResponse{Error: "?wait= must be a whole number", Code: "bad_request_new"}}
	assert.Equal(t, "no such session: it may have been deleted, or the link is wrong", DescribeError(known))
	locale.Use(i18n.Chinese)
	defer locale.Use(i18n.English)
	assert.Equal(t, "没有这个会话：它可能已被删除，或者链接有误", DescribeError(known))
	assert.Equal(t, "?wait= must be a whole number", DescribeError(unknown))
	assert.Equal(t, "无法连接服务器", DescribeError(api.ErrUnreachable))
	assert.Equal(t, "未发送：无法连接服务器。你的文字已放回输入框。", NoticeOf(input.Notice{Restored: true}, api.ErrUnreachable).Text)
}

// TestANoticeShownIsReworded: a send's notice made in English says itself again in Chinese
// after a switch, a refused field's check among it.
func TestANoticeShownIsReworded(t *testing.T) {
	refused := &protocol.ValidationError{Fields: map[string]string{"content": "must be at most 5"}}
	n := NoticeOf(input.Notice{Restored: true}, refused)
	assert.Equal(t, "Not sent: must be at most 5. Your text is back in the composer.", n.Text)
	locale.Use(i18n.Chinese)
	defer locale.Use(i18n.English)
	assert.Equal(t, "Not sent: must be at most 5. Your text is back in the composer.", n.Text, "the words it was made with")
	assert.Equal(t, "未发送：不能大于 5。你的文字已放回输入框。", n.Say())
}
