package main

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
)

// checkDialect returns nil if the PSP at t.BaseURL speaks t.Dialect, and otherwise an error
// that names the dialect asked for and the one the PSP speaks. An external PSP speaks the
// dialect of its own -dialect flag, which the control API does not say, so checkDialect
// probes: a DELETE on a payments path of each dialect, t.Dialect's first. The dialect the PSP
// speaks answers 405 Method Not Allowed, since the path is its own, and the others 404. A
// DELETE changes nothing and reaches no payment. hc makes the probes.
func checkDialect(ctx context.Context, t *target, hc *http.Client) error {
	if ok, err := speaks(ctx, t, hc, t.Dialect); ok || err != nil {
		return err
	}
	names := []string{}
	for _, d := range dialects {
		names = append(names, d.Name)
		if d.Name == t.Dialect.Name {
			continue
		}
		if ok, err := speaks(ctx, t, hc, d); ok || err != nil {
			return cmp.Or(err, fmt.Errorf("demo: -dialect %s, but the PSP at %s speaks %s: start it with "+
				"psp -dialect %[1]s, or run the demo with -dialect %[3]s", t.Dialect.Name, t.BaseURL, d.Name))
		}
	}
	return fmt.Errorf("demo: -dialect %s, but the PSP at %s speaks none of %s: no DELETE of their payment "+
		"paths answered 405", t.Dialect.Name, t.BaseURL, strings.Join(names, ", "))
}

// speaks reports whether the PSP at t.BaseURL answers a DELETE of d.ProbePath 405. The request
// carries t.Token, for a PSP that checks the token before the method.
func speaks(ctx context.Context, t *target, hc *http.Client, d *dialect) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.BaseURL+d.ProbePath, http.NoBody)
	if err != nil {
		return false, fmt.Errorf("demo: probing the PSP's dialect: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+t.Token)
	resp, err := hc.Do(req)
	if err != nil {
		return false, fmt.Errorf("demo: probing the PSP's dialect: %w", err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusMethodNotAllowed, nil
}
