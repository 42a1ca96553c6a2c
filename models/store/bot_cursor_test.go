package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestBotCursorPositionIsSavedAndReplaced(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		steps := []struct {
			name     string
			save     string
			position int64
			want     map[string]int64
		}{
			{name: "nothing saved reads 0", want: map[string]int64{"audit": 0, "other": 0}},
			{name: "first save", save: "audit", position: 7, want: map[string]int64{"audit": 7, "other": 0}},
			{name: "a later save replaces it", save: "audit", position: 42, want: map[string]int64{"audit": 42, "other": 0}},
			{name: "names are independent", save: "other", position: 3, want: map[string]int64{"audit": 42, "other": 3}},
		}
		for _, step := range steps {
			if step.save != "" {
				if err := db.SaveBotCursorPosition(ctx, step.save, step.position, at); err != nil {
					t.Fatalf("%s: save: %v", step.name, err)
				}
			}
			for name, want := range step.want {
				got, err := db.BotCursorPosition(ctx, name)
				if err != nil {
					t.Fatalf("%s: read %s: %v", step.name, name, err)
				}
				if got != want {
					t.Errorf("%s: position of %s = %d, want %d", step.name, name, got, want)
				}
			}
		}
	})
}
