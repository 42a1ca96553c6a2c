package api_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/internal/metricstest"
)

// TestLeakReportsPastTheBoundOnLargeBodiesAreAnsweredUnread: the HTTP
// server sets a body's whole announced length aside as soon as its head
// has come, so the bytes of large leak reports admitted are bounded: 4
// MiB at once, refilled over the 10 s read timeout. Sixteen full reports
// (256 KiB each) fit; the seventeenth is answered 503 with Retry-After
// from its head alone, and counted; once the bound has refilled a report
// is read again. Small reports never wait for the bound.
func TestLeakReportsPastTheBoundOnLargeBodiesAreAnsweredUnread(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	trusted, err := api.ParseLeakReportKeys(publicKeysJSON(t, github))
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	h := newHarness(t, harnessOptions{config: func(cfg *api.Config) {
		cfg.LeakReportKeys = trusted
		cfg.Metrics = reg
	}})
	key := h.issue("1")
	full := reportOf(t, key)
	full = append(full, bytes.Repeat([]byte(" "), 256<<10-len(full))...)
	addr := serveOn(t, h)
	for i := range 16 {
		if verdicts := verdictsOf(t, postReportOverTCP(t, h, github, full)); len(verdicts) != 1 || verdicts[0].Label != "true_positive" {
			t.Fatalf("full report %d: verdicts %v, want the key a true positive", i+1, verdicts)
		}
	}

	resp := postReportHeadOverTCP(t, addr, github, full)
	expectError(t, resp, http.StatusServiceUnavailable, "Temporarily unavailable")
	if got := resp.Header.Get("Retry-After"); got != "10" {
		t.Errorf("Retry-After %q, want 10", got)
	}
	if got := metricstest.Gather(t, reg).Value("crowns_rate_limited_total", map[string]string{"reason": "large_bodies"}); got != 1 {
		t.Errorf(`crowns_rate_limited_total{reason="large_bodies"} = %v, want 1`, got)
	}

	small := reportOf(t, key)
	if verdicts := verdictsOf(t, postReportOverTCP(t, h, github, small)); len(verdicts) != 1 {
		t.Fatalf("a small report while the bound is spent: verdicts %v, want one", verdicts)
	}
	h.clock.Advance(10 * time.Second)
	if verdicts := verdictsOf(t, postReportOverTCP(t, h, github, full)); len(verdicts) != 1 {
		t.Fatalf("a full report once the bound refilled: verdicts %v, want one", verdicts)
	}
}
