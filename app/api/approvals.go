package api

import (
	"context"
	"net/url"
	"strconv"

	"parley/protocol"
)

// The approvals screen's requests (docs/approvals.md).

const methodDelete = "DELETE"

// ApprovalQueue returns every pending decision across sessions, oldest first. With wait, the
// server answers once its version differs from *wait (or after about 25 s): a long poll.
func (c *Client) ApprovalQueue(ctx context.Context, wait *uint64) (protocol.ApprovalQueue, error) {
	return poll[protocol.ApprovalQueue](ctx, c, "/api/approvals", wait)
}

// ApprovalHistory returns ended decisions, newest first, filtered and paged.
func (c *Client) ApprovalHistory(ctx context.Context, f protocol.HistoryFilter) (protocol.ApprovalHistory, error) {
	q := url.Values{}
	for k, v := range map[string]string{"session": f.Session, "workspace": f.Workspace, "outcome": f.Outcome} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Before != 0 {
		q.Set("before", strconv.FormatUint(f.Before, 10))
	}
	if f.Limit != 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	path := "/api/approvals/history"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return get[protocol.ApprovalHistory](ctx, c, path)
}

// ApprovalGrants returns every workspace's grants with their reach in words and last use.
func (c *Client) ApprovalGrants(ctx context.Context) ([]protocol.GrantEntry, error) {
	out, err := get[protocol.GrantEntries](ctx, c, "/api/approvals/grants")
	return out.Grants, err
}

// RevokeGrant takes a grant back, in whichever workspace it is: the next check asks again.
func (c *Client) RevokeGrant(ctx context.Context, id string) error {
	return c.do(ctx, methodDelete, "/api/grants/"+url.PathEscape(id), nil, nil)
}

// RequestRetry asks the agent to make an expired request again, with an ordinary prompt.
func (c *Client) RequestRetry(ctx context.Context, session, decision string) (protocol.RetryResponse, error) {
	return call[protocol.RetryResponse](ctx, c, methodPost, "/api/sessions/"+session+"/decisions/"+decision+"/retry", nil)
}
