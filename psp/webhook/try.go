package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// maxAnswerBytes is the most of an answer's body a try reads, and discards, so that its
// connection may serve the next try.
const maxAnswerBytes = 64 << 10

// try sends d's body in Config.Form, signed now, and reads the answer. A fail fault's try is not sent.
func (s *Sender) try(d *delivery) Attempt {
	a := Attempt{At: time.Now()}
	if d.failing > 0 {
		d.failing--
		a.Error = "a fail fault: the try failed before it was sent"
		return a
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.Timeout)
	defer cancel()
	req, err := s.cfg.Form.Request(ctx, s.cfg.URL, s.cfg.Secret, a.At, d.body)
	if err == nil {
		var resp *http.Response
		if resp, err = s.client.Do(req); err == nil {
			a.Status = resp.StatusCode // the answer is its status, whatever becomes of the body
			io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswerBytes))
			resp.Body.Close()
		}
	}
	a.Elapsed = time.Since(a.At)
	if err != nil {
		a.Error = s.tryError(ctx, err)
	}
	return a
}

// tryError says why a try whose context was ctx got no answer.
func (s *Sender) tryError(ctx context.Context, err error) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %v", s.cfg.Timeout)
	}
	if u, ok := errors.AsType[*url.Error](err); ok {
		return u.Err.Error() // the URL is known: not in every attempt
	}
	return err.Error()
}

// log writes a record of try n of d, a, which left d in state.
func (s *Sender) log(d *delivery, n int, a Attempt, state string) {
	level, msg := slog.LevelInfo, "psp: webhook try"
	switch state {
	case "":
		return
	case GivenUp:
		level, msg = slog.LevelWarn, "psp: webhook given up"
	}
	s.cfg.Logger.Log(context.Background(), level, msg, "id", d.ID, "end_to_end_id", d.EndToEndID, "try", n,
		"status", a.Status, "error", a.Error, "elapsed", a.Elapsed, "state", state)
}
