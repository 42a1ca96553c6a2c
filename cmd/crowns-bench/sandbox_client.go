package main

import (
	"net/http"
	"net/http/httptest"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// sandboxClient is the game-API client of crowns reading world in
// process: the requests go to the world's handler without a network, so
// that seeding reads clans as crowns does, through the client's own
// mapping, thousands of times a second.
func sandboxClient(world *sandbox.World, clock models.Clock) (*upstream.Client, error) {
	return upstream.New(upstream.Config{
		BaseURL:    "http://sandbox.invalid/v1",
		Token:      "bench",
		HTTPClient: &http.Client{Transport: handlerTransport{world.Handler()}},
		Clock:      clock,
	})
}

// handlerTransport answers requests with a handler, in process.
type handlerTransport struct {
	handler http.Handler
}

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	recorder := httptest.NewRecorder()
	t.handler.ServeHTTP(recorder, req)
	return recorder.Result(), nil
}
