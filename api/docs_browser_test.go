// The allocation test runs apart, without the race detector, built with
// the allocations tag: without this file, it needs none of its libraries
// compiled a second time (see .ci/run).

//go:build !allocations

package api_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's Chromium, which .ci/run installs.
const chromiumPath = "/usr/bin/chromium"

// browserLog is what the page asked for and complained about.
type browserLog struct {
	mu       sync.Mutex
	requests []string
	problems []string
}

func (b *browserLog) add(list *[]string, s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	*list = append(*list, s)
}

func (b *browserLog) snapshot() (requests, problems []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...), append([]string(nil), b.problems...)
}

// TestDocsPageInChromium opens /docs, served under a path prefix, in
// headless Chromium and checks that the page lists every route of the
// document and renders a response sample, without asking anything of a
// host other than the server's.
func TestDocsPageInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs %s for the documentation page's test (.ci/run installs it): %v", chromiumPath, err)
		}
		t.Skipf("no %s: the documentation page is not tried in a browser", chromiumPath)
	}
	h := newTournamentHarness(t)
	base := serveOnLoopback(t, h.server)
	paths := documentModel(t, h).Paths.InMatchingOrder()

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()

	var seen browserLog
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			seen.add(&seen.requests, e.Request.URL)
		case *runtime.EventExceptionThrown:
			seen.add(&seen.problems, "exception: "+e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			// Warnings are the renderer's notes (its sampler's, say);
			// errors are failures.
			if e.Type == "error" {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				seen.add(&seen.problems, "console "+string(e.Type)+": "+strings.Join(args, " "))
			}
		case *cdplog.EventEntryAdded:
			// Content-Security-Policy violations and failed loads.
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				seen.add(&seen.problems, "log "+string(e.Entry.Source)+": "+e.Entry.Text+" "+e.Entry.URL)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		// Behind a proxy that serves Crowns under a path prefix, as
		// operators do: the page finds its files there too.
		chromedp.Navigate(underPrefix(t, base, "/crowns")+"/crowns/docs"),
		chromedp.WaitVisible(chromedp.CSS(`[data-section-id="operation/searchClans"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.redoc-json`)),
	)
	var text string
	var samples int
	if err == nil {
		text, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.textContent`))
	}
	if err == nil {
		samples, err = chromedp.Run(ctx, chromedp.Evaluate[int](
			`Array.from(document.querySelectorAll('.redoc-json')).filter(e => e.textContent.includes('G2QL8VC')).length`))
	}
	requests, problems := seen.snapshot()
	if err != nil {
		t.Fatalf("the page did not render: %v; requests %v; problems %v", err, requests, problems)
	}

	for _, path := range paths {
		if !strings.Contains(text, path) {
			t.Errorf("route %s is not listed on the page", path)
		}
	}
	if samples == 0 {
		t.Error("the clan search's response sample is not rendered")
	}
	if len(requests) < 3 {
		t.Errorf("the page made %d requests (%v); the test does not see them", len(requests), requests)
	}
	for _, raw := range requests {
		u, err := url.Parse(raw)
		switch {
		case err != nil:
			t.Errorf("request to %q", raw)
		case u.Scheme == "data" || u.Scheme == "blob" || u.Scheme == "about":
		case u.Hostname() != "127.0.0.1":
			t.Errorf("the page asked a host other than the server: %s", raw)
		}
	}
	for _, p := range problems {
		t.Errorf("the page reported: %s", p)
	}
	if resp := h.get("/docs"); resp.StatusCode != http.StatusOK {
		t.Fatalf("/docs: status %d", resp.StatusCode)
	}
}
