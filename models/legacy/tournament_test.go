package legacy_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
)

func TestTournamentLegacyShape(t *testing.T) {
	created := time.Date(2017, 12, 27, 1, 41, 51, 0, time.UTC)
	members := []models.TournamentMember{{Tag: "Y2GLU0QP", Name: "Ilse", Score: 274, Rank: 1}, {Tag: "YP0CRG9L", Name: "Morgan", Score: 12, Rank: 2}}
	for _, tt := range []struct {
		name    string
		details models.TournamentDetails
		want    string
	}{
		{
			name: "ended, creator among the members",
			details: models.TournamentDetails{
				Tag: "2CQJ8GY0", Type: "passwordProtected", Status: "ended", Name: "evening cup", Description: "d",
				CreatorTag: "YP0CRG9L", Capacity: 2, MaxCapacity: 100, PreparationDuration: 7200, Duration: 3600,
				CreatedTime: created, StartedTime: created.Add(2 * time.Hour), EndedTime: created.Add(3 * time.Hour),
				EndedTimeRaw: "20171227T044151.000Z", Members: members,
			},
			want: `{"tag":"2CQJ8GY0","type":"passwordProtected","open":false,"status":"ended","name":"evening cup","description":"d",` +
				`"capacity":2,"maxCapacity":100,"maxPlayers":100,"preparationDuration":7200,"prepTime":7200,"duration":3600,"endedTime":"20171227T044151.000Z","startTime":1514346111,"createTime":1514338911,` +
				`"creator":{"tag":"YP0CRG9L","name":"Morgan","score":12},` +
				`"members":[{"tag":"Y2GLU0QP","name":"Ilse","score":274},{"tag":"YP0CRG9L","name":"Morgan","score":12}]}`,
		},
		{
			name: "in preparation, creator not a member",
			details: models.TournamentDetails{
				Tag: "2CQJ8GY0", Type: "open", Status: "inPreparation", Name: "n", CreatorTag: "2PP",
				MaxCapacity: 50, PreparationDuration: 3600, Duration: 3600, CreatedTime: created, Members: members[:1],
			},
			want: `{"tag":"2CQJ8GY0","type":"open","open":true,"status":"inPreparation","name":"n","description":"",` +
				`"capacity":0,"maxCapacity":50,"maxPlayers":50,"preparationDuration":3600,"prepTime":3600,"duration":3600,"endedTime":null,"startTime":null,"createTime":1514338911,` +
				`"creator":{"tag":"2PP","name":"","score":0},"members":[{"tag":"Y2GLU0QP","name":"Ilse","score":274}]}`,
		},
		{
			name: "no creator, no members",
			details: models.TournamentDetails{
				Tag: "2CQJ8GY0", Type: "open", Status: "inProgress", Name: "n", MaxCapacity: 50,
				CreatedTime: created, StartedTime: created.Add(time.Hour),
			},
			want: `{"tag":"2CQJ8GY0","type":"open","open":true,"status":"inProgress","name":"n","description":"",` +
				`"capacity":0,"maxCapacity":50,"maxPlayers":50,"preparationDuration":0,"prepTime":0,"duration":0,"endedTime":null,"startTime":1514342511,"createTime":1514338911,"creator":null,"members":[]}`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(legacy.NewTournament(tt.details))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestTournamentListShapes(t *testing.T) {
	created := time.Date(2018, 7, 6, 11, 37, 10, 0, time.UTC)
	record := models.TournamentRecord{
		TournamentDetails: models.TournamentDetails{
			Tag: "UC2LQ0G", Type: "open", Status: "inProgress", Name: "combat", Description: "tirer",
			Capacity: 40, MaxCapacity: 1000, PreparationDuration: 7200, Duration: 3600,
			CreatedTime: created, StartedTime: created.Add(2 * time.Hour),
		},
		UpdatedAt: created.Add(150 * time.Minute),
	}
	for _, tt := range []struct {
		list    string
		element any
		want    string
	}{
		{"known, open, joinable", legacy.NewKnownTournament(record),
			`{"tag":"UC2LQ0G","open":true,"status":"inProgress","name":"combat","currentPlayers":40,"maxPlayers":1000,` +
				`"prepTime":7200,"duration":3600,"createTime":1530877030,"startTime":1530884230,"endTime":null}`},
		{"1k", legacy.NewThousandTournament(record),
			`{"tag":"UC2LQ0G","name":"combat","open":true,"currentPlayers":40,"status":"inProgress","createTime":1530877030,` +
				`"prepTime":7200,"startTime":1530884230,"endTime":null,"duration":3600,"description":"tirer","updatedAt":1530886030,"maxCapacity":1000}`},
		{"full", legacy.NewFullTournament(record),
			`{"tag":"UC2LQ0G","name":"combat","open":true,"maxPlayers":1000,"currentPlayers":40,"status":"inProgress","createTime":1530877030,` +
				`"prepTime":7200,"startTime":1530884230,"endTime":null,"duration":3600,"description":"tirer","updatedAt":1530886030,"members":[]}`},
		{"inprep", legacy.NewPreparingTournament(record),
			`{"tag":"UC2LQ0G","open":true,"status":"inProgress","name":"combat","currentPlayers":40,"maxCapacity":1000,` +
				`"prepTime":7200,"duration":3600,"createTime":1530877030,"startTime":1530884230,"endTime":null}`},
	} {
		t.Run(tt.list, func(t *testing.T) {
			got, err := json.Marshal(tt.element)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// A tournament whose creation time the game API did not give (or gave in
// a form it does not document) has createTime 0 in every shape, never the
// zero time's -62135596800.
func TestAnUnknownCreationTimeIsZero(t *testing.T) {
	record := models.TournamentRecord{
		TournamentDetails: models.TournamentDetails{Tag: "UC2LQ0G", Type: "open", Status: "inPreparation", Name: "n", MaxCapacity: 50},
		UpdatedAt:         time.Date(2018, 7, 6, 11, 37, 10, 0, time.UTC),
	}
	for name, shape := range map[string]any{
		"single":                legacy.NewTournament(record.TournamentDetails),
		"known, open, joinable": legacy.NewKnownTournament(record),
		"1k":                    legacy.NewThousandTournament(record),
		"full":                  legacy.NewFullTournament(record),
		"inprep":                legacy.NewPreparingTournament(record),
	} {
		got, err := json.Marshal(shape)
		if err != nil {
			t.Fatal(err)
		}
		var fields struct {
			CreateTime *int64 `json:"createTime"`
		}
		if err := json.Unmarshal(got, &fields); err != nil {
			t.Fatal(err)
		}
		if fields.CreateTime == nil || *fields.CreateTime != 0 {
			t.Errorf("%s: %s, want createTime 0", name, got)
		}
	}
}
