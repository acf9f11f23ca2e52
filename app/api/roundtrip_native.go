//go:build !js

package api

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

type (
	httpClient = http.Client
	httpHeader = http.Header
)

func (c *Client) roundTrip(ctx context.Context, method, url string, header httpHeader, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = header
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return resp.StatusCode, data, err
}
