package api

import (
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// TestRequestNowReadsTheClockOnce: on the system clock, the request's time
// is the one the server read the request at; on another clock it is that
// clock's, read once however often it is asked.
func TestRequestNowReadsTheClockOnce(t *testing.T) {
	start := time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC)
	for _, system := range []bool{true, false} {
		manual := models.NewManualClock(start)
		var clock models.Clock = manual
		if system {
			clock = models.SystemClock{}
		}
		s := &Server{
			cfg: Config{RequestTimeout: time.Second}, log: slog.New(slog.DiscardHandler),
			clock: clock, systemClock: system, requestIDs: newRequestIDs(), headers: newHeaderNames(),
		}
		var read, first, second time.Time
		app := fiber.New()
		app.Use(s.requestContext)
		app.Get("/", func(c *fiber.Ctx) error {
			read = c.Context().Time()
			first = s.requestNow(c)
			manual.Advance(time.Minute)
			second = s.requestNow(c)
			return nil
		})
		if _, err := app.Test(httptest.NewRequest("GET", "/", nil)); err != nil {
			t.Fatal(err)
		}
		want := start
		if system {
			want = read.UTC()
		}
		if read.IsZero() || !first.Equal(want) || first.Location() != time.UTC {
			t.Fatalf("system clock %v: request time %v, want %v in UTC", system, first, want)
		}
		if !second.Equal(first) {
			t.Fatalf("system clock %v: asked again, the request time moved from %v to %v", system, first, second)
		}
	}
}
