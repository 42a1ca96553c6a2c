package main

import (
	"context"
	"fmt"
	"net"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/api"
)

// bareServer is the ceiling the bench compares Crowns with: a Fiber app
// that answers fixed bytes, with nothing in front of them.
type bareServer struct {
	app    *fiber.App
	listen net.Listener
}

// bareRoute is a route of the bare server: its path pattern and the
// fixed body it answers.
type bareRoute struct {
	path string
	body []byte
}

// startBareServer serves routes as JSON answers on a free loopback port,
// with the API's Fiber configuration (timeouts, buffers): the difference
// to the API is then what its middleware and handlers cost.
func startBareServer(routes []bareRoute) (*bareServer, error) {
	app := fiber.New(api.FiberConfig())
	for _, route := range routes {
		app.Get(route.path, func(c *fiber.Ctx) error {
			c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
			return c.Send(route.body)
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bare server: %w", err)
	}
	go func() { _ = app.Listener(ln) }()
	return &bareServer{app: app, listen: ln}, nil
}

func (b *bareServer) addr() string { return b.listen.Addr().String() }

func (b *bareServer) stop(ctx context.Context) error { return b.app.ShutdownWithContext(ctx) }

// fixedBody is n bytes of JSON-looking filler.
func fixedBody(n int64) []byte {
	body := make([]byte, max(n, 2))
	for i := range body {
		body[i] = 'x'
	}
	body[0], body[len(body)-1] = '"', '"'
	return body
}
