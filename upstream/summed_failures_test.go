package upstream_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

// A call whose caller sums its failures up logs its failed attempts and
// its failure at DEBUG; a failure that is a configuration problem stays
// at ERROR.
func TestCallerSumsUpFailures(t *testing.T) {
	tests := []struct {
		name, body  string
		status      int
		level, none string
	}{
		{"maintenance", `{"reason":"inMaintenance"}`, 503, "level=DEBUG msg=\"game API in maintenance\"", "level=WARN"},
		{"refused token", `{"reason":"accessDenied"}`, 403, "level=ERROR msg=\"the game API refused our token", "level=WARN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, calls := countingUpstream(t, errorAnswer(tt.status, "", tt.body))
			client, logs := newClient(t, base, upstream.Config{})
			_, err := client.Clan(upstream.CallerSumsUpFailures(context.Background()), "C2Q8")
			if !errors.Is(err, models.ErrUnavailable) {
				t.Fatalf("error %v, want unavailable", err)
			}
			out := logs.String()
			if !strings.Contains(out, tt.level) || strings.Contains(out, tt.none) {
				t.Errorf("after %d requests the log lacks %q or has %q:\n%s", calls.Load(), tt.level, tt.none, out)
			}
		})
	}
}
