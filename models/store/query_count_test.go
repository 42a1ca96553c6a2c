package store_test

import (
	"context"
	"testing"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestBackgroundStatementsAreCountedApart(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	ctx := context.Background()
	all, background := db.QueryCount(), db.BackgroundQueryCount()
	if _, err := db.LastKeyEventID(models.AsBackground(ctx)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.LastKeyEventID(ctx); err != nil {
		t.Fatal(err)
	}
	if got, gotBackground := db.QueryCount()-all, db.BackgroundQueryCount()-background; got != 2 || gotBackground != 1 {
		t.Fatalf("counted %d statements, %d of them background; want 2 and 1", got, gotBackground)
	}
}
