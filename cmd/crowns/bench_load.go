package main

import (
	"context"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// loadRequest is one request of a route's rotation.
type loadRequest struct {
	// uri is the full URL, http://host:port/path?query.
	uri []byte
	// key is sent in the auth header; none when empty.
	key string
	// gzip sends Accept-Encoding: gzip, as most clients (Go's
	// http.Transport, browsers, curl --compressed) do.
	gzip bool
}

// loadOutcome is what one route's load produced.
type loadOutcome struct {
	requests  int64
	errors    int64
	bodyBytes int64
	elapsed   time.Duration
	latency   latencyHistogram
}

// add accumulates another outcome of the same route.
func (o *loadOutcome) add(other loadOutcome) {
	o.requests += other.requests
	o.errors += other.errors
	o.bodyBytes += other.bodyBytes
	o.elapsed += other.elapsed
	o.latency.merge(&other.latency)
}

// loadClient drives keep-alive load at one server: connections goroutines
// in a closed loop, each with its own connection, each sending its next
// request as soon as the previous answer is read.
type loadClient struct {
	client      *fasthttp.HostClient
	connections int
}

func newLoadClient(addr string, connections int) *loadClient {
	return &loadClient{
		client: &fasthttp.HostClient{
			Addr:                     addr,
			MaxConns:                 connections,
			NoDefaultUserAgentHeader: true,
			ReadTimeout:              30 * time.Second,
			WriteTimeout:             30 * time.Second,
			MaxIdleConnDuration:      time.Minute,
		},
		connections: connections,
	}
}

// drive sends requests in rotation until duration has passed (or ctx
// ends): goroutine w starts at the w-th part of the rotation. An answer
// whose status is not want, or a transport error, counts as an error.
// With rounds > 0 it stops instead after each goroutine has sent rounds
// requests (a warm-up pass).
func (l *loadClient) drive(ctx context.Context, requests []loadRequest, want int, duration time.Duration, rounds int) loadOutcome {
	outcomes := make([]loadOutcome, l.connections)
	start := time.Now()
	deadline := start.Add(duration)
	var wg sync.WaitGroup
	asPart(ctx, partLoad, func(ctx context.Context) {
		for w := range l.connections {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outcomes[w] = l.loop(ctx, requests, w*len(requests)/l.connections, want, deadline, rounds)
			}()
		}
	})
	wg.Wait()
	var total loadOutcome
	for i := range outcomes {
		total.requests += outcomes[i].requests
		total.errors += outcomes[i].errors
		total.bodyBytes += outcomes[i].bodyBytes
		total.latency.merge(&outcomes[i].latency)
	}
	total.elapsed = time.Since(start)
	return total
}

// loop is one connection's closed loop.
func (l *loadClient) loop(ctx context.Context, requests []loadRequest, next, want int, deadline time.Time, rounds int) loadOutcome {
	var out loadOutcome
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	for sent := 0; rounds <= 0 || sent < rounds; sent++ {
		r := &requests[next%len(requests)]
		next++
		req.Reset()
		req.SetRequestURIBytes(r.uri)
		if r.key != "" {
			req.Header.Set("auth", r.key)
		}
		if r.gzip {
			req.Header.Set(fasthttp.HeaderAcceptEncoding, "gzip")
		}
		began := time.Now()
		if (rounds <= 0 && !began.Before(deadline)) || ctx.Err() != nil {
			break
		}
		err := l.client.Do(req, resp)
		out.latency.record(time.Since(began))
		out.requests++
		if err != nil || resp.StatusCode() != want {
			out.errors++
			continue
		}
		out.bodyBytes += int64(len(resp.Body()))
	}
	return out
}

// close drops the idle connections.
func (l *loadClient) close() { l.client.CloseIdleConnections() }
