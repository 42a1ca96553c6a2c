package main

import (
	"context"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/sync/errgroup"
)

// fetchWorkers is how many requests fetchAll has in flight.
const fetchWorkers = 8

// fetchAll asks Crowns at addr each of draws once and returns the
// answers as received (the body as sent: compressed when it was).
func fetchAll(ctx context.Context, addr string, draws []draw, gzip bool) ([]answer, error) {
	client := &fasthttp.HostClient{Addr: addr, MaxConns: fetchWorkers, ReadTimeout: loadTimeout, WriteTimeout: loadTimeout}
	defer client.CloseIdleConnections()
	out := make([]answer, len(draws))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fetchWorkers)
	for i, d := range draws {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI("http://" + addr + d.uri)
			if d.key != "" {
				req.Header.Set("auth", d.key)
			}
			if gzip {
				req.Header.Set(fasthttp.HeaderAcceptEncoding, "gzip")
			}
			if err := client.DoTimeout(req, resp, time.Minute); err != nil {
				return fmt.Errorf("GET %s: %w", d.uri, err)
			}
			out[i] = answer{
				Status:          resp.StatusCode(),
				ContentType:     string(resp.Header.ContentType()),
				ContentEncoding: string(resp.Header.ContentEncoding()),
				Headers:         replayedHeaders(&resp.Header),
				Body:            append([]byte(nil), resp.Body()...),
			}
			return nil
		})
	}
	return out, g.Wait()
}

// replayedHeaders are the headers of an answer the bare server sends
// again: all but those its own server sets for every answer (Date,
// Server, Content-Length, Connection) and Content-Type and
// Content-Encoding, kept apart.
func replayedHeaders(h *fasthttp.ResponseHeader) [][2]string {
	var out [][2]string
	for name, value := range h.All() {
		switch string(name) {
		case fasthttp.HeaderDate, fasthttp.HeaderServer, fasthttp.HeaderContentLength, fasthttp.HeaderConnection,
			fasthttp.HeaderContentType, fasthttp.HeaderContentEncoding:
			continue
		}
		out = append(out, [2]string{string(name), string(value)})
	}
	return out
}
