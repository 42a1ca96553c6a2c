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
	all, request, background := db.QueryCount(), db.RequestQueryCount(), db.BackgroundQueryCount()
	if _, err := db.LastKeyEventID(models.AsBackground(ctx)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.LastKeyEventID(ctx); err != nil {
		t.Fatal(err)
	}
	got, gotRequest, gotBackground := db.QueryCount()-all, db.RequestQueryCount()-request, db.BackgroundQueryCount()-background
	if got != 2 || gotRequest != 1 || gotBackground != 1 {
		t.Fatalf("counted %d statements, %d of them of requests and %d background; want 2, 1 and 1", got, gotRequest, gotBackground)
	}
}
