package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pixretry/psp"
	"pixretry/psp/control"
)

// mustChromium returns the path of Debian's chromium on PATH. Without it the test is skipped,
// or fails if PIXRETRY_BROWSER is "required", as .ci/run sets it.
func mustChromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err == nil {
		return path
	}
	const missing = "chromium not found: install Debian's chromium package; CI installs it"
	if os.Getenv("PIXRETRY_BROWSER") == "required" {
		t.Fatal(missing + " (PIXRETRY_BROWSER=required)")
	}
	t.Skip(missing)
	return ""
}

// mustBrowser starts headless Chromium for t, for at most the life of ctx. It returns a
// chromedp context and a function that stops the browser and waits for its process to exit,
// which also runs when t ends.
func mustBrowser(t *testing.T, ctx context.Context) (context.Context, func()) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(mustChromium(t)),
		chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir())) // no sandbox: CI runs as root
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	browser, cancel := chromedp.NewContext(allocCtx)
	stop := sync.OnceFunc(func() {
		cancel()
		cancelAlloc() // waits for the process
	})
	t.Cleanup(stop)
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return browser, stop
}

// until is an action that polls the page until the JavaScript expression is true.
func until(what, expression string) chromedp.Action[chromedp.Void] {
	check := chromedp.Evaluate[bool](expression)
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if ok, err := check(ctx, t); ok || err != nil {
				return chromedp.Void{}, err
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("the page never showed %s: %w", what, ctx.Err())
			case <-tick.C:
			}
		}
	}
}

// shows is an action that waits until the page has an element that selector matches.
func shows(what, selector string) chromedp.Action[chromedp.Void] {
	return until(what, fmt.Sprintf("document.querySelector(%q) !== null", selector))
}

// TestPageInABrowser drives the page at /_psp/ of a PSP with a control token in headless
// Chromium: it asks for the token, queues a fault through its form, and shows what the PSP did
// with the payments that a Go client sends, refreshing by itself.
func TestPageInABrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := mustStart(t, "-tokens", "smoke", "-control-token", "ctl-secret", "-log", "off")
	defer s.stop()
	start := time.Now()
	browser, stopBrowser := mustBrowser(t, ctx)
	defer stopBrowser() // first: the PSP's shutdown would wait for the browser's connections
	t.Logf("start chromium: %v", time.Since(start).Round(time.Millisecond))

	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		start := time.Now()
		defer func() { t.Logf("%s: %v", name, time.Since(start).Round(time.Millisecond)) }()
		if err := chromedp.Do(browser, actions...); err != nil {
			body, _ := chromedp.Run(browser, chromedp.OuterHTML(chromedp.CSS("body")))
			t.Fatalf("%s: %v\nthe page:\n%s", name, err, body)
		}
	}
	step("load the page, which asks for the token",
		chromedp.Navigate(s.url+control.PagePath),
		until("the token form", `!document.getElementById("token-form").hidden`),
		shows("no data", "#locked"))
	step("give the token",
		chromedp.SendKeys(chromedp.ID("token"), "ctl-secret"),
		chromedp.Click(chromedp.CSS("#token-form button")),
		shows("the balance", `#balance[data-balance="1000.00"]`),
		until("the token form hidden", `document.getElementById("token-form").hidden`))

	step("queue a bad fault",
		chromedp.SetValue(chromedp.ID("fault"), `{"kind":"boom"}`),
		chromedp.Click(chromedp.CSS("#fault-form button")),
		until("the violation", `document.getElementById("fault-result").textContent.includes('400: ') && `+
			`document.getElementById("fault-result").textContent.includes('faults[0]: psp: invalid fault: unknown kind "boom"')`))
	step("queue a 503",
		chromedp.SetValue(chromedp.ID("fault"), `{"kind":"status","status":503}`),
		chromedp.Click(chromedp.CSS("#fault-form button")),
		until("the 204", `document.getElementById("fault-result").textContent === "204: queued"`),
		shows("the fault queued", `#faults[data-count="1"]`))

	if status, body := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment)); status != 503 {
		t.Fatalf("payment = %d %s, want the queued 503", status, body)
	}
	step("see the fault consumed and the 503 in the journal",
		shows("an empty fault queue", `#faults[data-count="0"]`),
		shows("the 503", `#journal tr[data-key="k1"][data-status="503"]`))

	if status, body := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment)); status != 201 {
		t.Fatalf("payment again = %d %s, want 201", status, body)
	}
	step("see the settlement",
		shows("the settlement", `#settlements tr[data-key="k1"]`),
		shows("the 201", `#journal tr[data-key="k1"][data-status="201"]`),
		shows("the new balance", `#balance[data-balance="850.00"]`))
}
