package components

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/app/locale"
	"parley/app/socket"
	"parley/i18n"
)

// TestLinkErrorInTheLocale: why the socket dropped is the network library's English, shown as
// it is in English and as the connection closing in Chinese; nothing known stays nothing.
func TestLinkErrorInTheLocale(t *testing.T) {
	const netErr = "failed to read: use of closed network connection"
	assert.Equal(t, netErr, linkError(netErr))
	assert.Equal(t, "the connection closed", linkError("the connection closed"))
	locale.Use(i18n.Chinese)
	defer locale.Use(i18n.English)
	assert.Equal(t, "连接已关闭", linkError(netErr))
	assert.Equal(t, "连接已关闭", linkError("the connection closed"))
	assert.Empty(t, linkError(socket.Unreachable))
	assert.Empty(t, linkError(""))
}
