package api

import (
	"context"
	"strconv"

	"parley/protocol"
)

// Events reads one page of a session's log: the events after offset after, at most limit
// of them (0 for the server's default). Ask again after page.Next while it is below
// page.Head.
func (c *Client) Events(ctx context.Context, session string, after uint64, limit int) (protocol.EventPage, error) {
	path := "/api/sessions/" + session + "/events?after=" + strconv.FormatUint(after, 10)
	if limit > 0 {
		path += "&limit=" + strconv.Itoa(limit)
	}
	return get[protocol.EventPage](ctx, c, path)
}
