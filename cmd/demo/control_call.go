package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// maxControlBody bounds what the demo reads of a control answer, in bytes: 1 MiB.
const maxControlBody = 1048576

// call makes one control request: body, when not nil, is sent as JSON; the answer must have
// status want, and out, when not nil, receives its JSON body. Errors name the method and path.
func (c control) call(ctx context.Context, method, path string, body []byte, want int, out any) error {
	ctx, cancel := context.WithTimeout(ctx, controlTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("demo: %s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("demo: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxControlBody))
	if err != nil {
		return fmt.Errorf("demo: %s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode != want {
		return fmt.Errorf("demo: %s %s: status %d, want %d (is this a cmd/psp with its control API?): %s",
			method, path, resp.StatusCode, want, bytes.TrimSpace(answer))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("demo: %s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}
