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

// Window reads the window of a session's log that ends where the one starting at before
// begins, holding at least size entries (0 for the server's default): fold its Prelude,
// then its Events, into an empty thread (protocol.WindowPage).
func (c *Client) Window(ctx context.Context, session string, before uint64, size int) (protocol.WindowPage, error) {
	path := "/api/sessions/" + session + "/window?before=" + strconv.FormatUint(before, 10)
	if size > 0 {
		path += "&size=" + strconv.Itoa(size)
	}
	return get[protocol.WindowPage](ctx, c, path)
}
