package upstream_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

// A tournament's status and type are one of the values Crowns documents
// whatever the game answers: the ones it names, in any casing, are
// respelled; its UNKNOWN, a value it added since, or none at all are
// "unknown". A lookup and a search read them alike.
func TestTournamentStatusAndTypeAreOnlyTheDocumentedValues(t *testing.T) {
	for _, tt := range []struct {
		status, kind         string
		wantStatus, wantKind string
	}{
		{"IN_PREPARATION", "OPEN", models.TournamentInPreparation, models.TournamentTypeOpen},
		{"inProgress", "passwordProtected", models.TournamentInProgress, models.TournamentTypePasswordProtected},
		{"ENDED", "PASSWORD_PROTECTED", models.TournamentEnded, models.TournamentTypePasswordProtected},
		{"UNKNOWN", "UNKNOWN", models.TournamentStatusUnknown, models.TournamentTypeUnknown},
		{"CANCELLED", "INVITE_ONLY", models.TournamentStatusUnknown, models.TournamentTypeUnknown},
		{"", "", models.TournamentStatusUnknown, models.TournamentTypeUnknown},
	} {
		t.Run(tt.status+"/"+tt.kind, func(t *testing.T) {
			header := fmt.Sprintf(`"tag":"#T2Q8","type":%q,"status":%q,"name":"Cup","capacity":1,"maxCapacity":50,
				"preparationDuration":3600,"duration":7200,"createdTime":"20240303T100000.000Z"`, tt.kind, tt.status)
			client, _ := newClient(t, fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.URL.Path == "/v1/tournaments" {
					_, _ = w.Write([]byte(`{"items":[{` + header + `}],"paging":{"cursors":{}}}`))
					return
				}
				_, _ = w.Write([]byte(`{` + header + `,"membersList":[]}`))
			}), upstream.Config{})
			looked, err := client.Tournament(context.Background(), "T2Q8")
			if err != nil {
				t.Fatal(err)
			}
			found, err := client.SearchTournaments(context.Background(), "cup", 0)
			if err != nil || len(found) != 1 {
				t.Fatalf("search: %v, %v", found, err)
			}
			for how, got := range map[string]models.TournamentDetails{"lookup": looked, "search": found[0]} {
				if got.Status != tt.wantStatus || got.Type != tt.wantKind {
					t.Errorf("%s: status %q, type %q; want %q, %q", how, got.Status, got.Type, tt.wantStatus, tt.wantKind)
				}
			}
		})
	}
}
