package api

import (
	"context"
	"net/url"

	"parley/protocol"
)

// Notifications (docs/pwa.md).

// ClaimSeen tells the server that decision is on screen for someone looking: nobody is
// notified of it.
func (c *Client) ClaimSeen(ctx context.Context, session, decision string) error {
	return c.do(ctx, "POST", "/api/notifications/seen", protocol.SeenClaim{Session: session, Decision: decision}, nil)
}

// PushKey returns the server's VAPID public key.
func (c *Client) PushKey(ctx context.Context) (protocol.PushKey, error) {
	return get[protocol.PushKey](ctx, c, "/api/push")
}

// SubscribePush stores this device's push subscription.
func (c *Client) SubscribePush(ctx context.Context, device string, sub protocol.PushSubscription) error {
	return c.do(ctx, "PUT", "/api/push/"+url.PathEscape(device), sub, nil)
}

// UnsubscribePush forgets this device's push subscription.
func (c *Client) UnsubscribePush(ctx context.Context, device string) error {
	return c.do(ctx, "DELETE", "/api/push/"+url.PathEscape(device), nil, nil)
}
