package pix

import (
	"cmp"
	"fmt"
	"time"
)

// keyWindow is how long after a key's first attempt an attempt under it may still be in
// flight: KeyTTL less a tenth (see Client.KeyTTL).
func (c *Client) keyWindow() time.Duration {
	ttl := cmp.Or(c.KeyTTL, c.dialect().KeyTTL())
	return ttl - ttl/10
}

// keyDeadline is the key deadline of a key whose first attempt left at first.
func (c *Client) keyDeadline(first time.Time) time.Time { return first.Add(c.keyWindow()) }

// keyExpired returns nil if an attempt started now, under a key whose first attempt left at
// first, would end before the key deadline. Otherwise it returns an error wrapping
// ErrKeyExpired.
func (c *Client) keyExpired(first time.Time) error {
	deadline := c.keyDeadline(first)
	if time.Now().Add(c.AttemptTimeout).Before(deadline) {
		return nil
	}
	return fmt.Errorf("%w: an attempt now would not end before the key deadline, %v after the first attempt",
		ErrKeyExpired, c.keyWindow())
}
