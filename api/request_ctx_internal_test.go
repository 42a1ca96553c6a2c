package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// TestRequestCtxIsMadeOnFirstUseAndEndsWithTheRequest: a request has no
// context until asked for one; then it is one context, with the deadline
// RequestTimeout after the request's start, done once the request ends;
// after requestContext the request names no state any more.
func TestRequestCtxIsMadeOnFirstUseAndEndsWithTheRequest(t *testing.T) {
	const timeout = 7 * time.Second
	s := &Server{
		cfg: Config{RequestTimeout: timeout}, log: slog.New(slog.DiscardHandler),
		clock: models.SystemClock{}, systemClock: true, requestIDs: newRequestIDs(), headers: newHeaderNames(),
		requests: context.Background(),
	}
	var (
		made     []context.Context
		leftOver []bool
	)
	app := fiber.New()
	app.Use(func(c *fiber.Ctx) error {
		err := c.Next()
		leftOver = append(leftOver, stateOf(c) != nil)
		return err
	})
	app.Use(s.requestContext)
	app.Get("/none", func(c *fiber.Ctx) error {
		if st := stateOf(c); st == nil || st.ctx != nil {
			t.Error("a request has a context before it asks for one")
		}
		return nil
	})
	app.Get("/some", func(c *fiber.Ctx) error {
		ctx := s.requestCtx(c)
		if s.requestCtx(c) != ctx {
			t.Error("asked twice, the request gave two contexts")
		}
		deadline, ok := ctx.Deadline()
		if want := stateOf(c).start.Add(timeout); !ok || !deadline.Equal(want) {
			t.Errorf("deadline %v, want %v", deadline, want)
		}
		if ctx.Err() != nil {
			t.Errorf("the context is done during the request: %v", ctx.Err())
		}
		made = append(made, ctx)
		return nil
	})
	for _, path := range []string{"/some", "/none", "/some", "/none"} {
		if _, err := app.Test(httptest.NewRequest("GET", path, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if len(made) != 2 || made[0] == made[1] {
		t.Fatalf("two requests that asked made %d contexts, want two distinct", len(made))
	}
	for _, ctx := range made {
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Fatalf("after its request, a context's error is %v, want Canceled", ctx.Err())
		}
		select {
		case <-ctx.Done():
		default:
			t.Fatal("after its request, a context is not done")
		}
	}
	for i, left := range leftOver {
		if left {
			t.Fatalf("request %d: its state is still named after requestContext", i)
		}
	}
}
