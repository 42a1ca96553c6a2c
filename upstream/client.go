package upstream

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/catalog"
)

// Defaults of Config.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultConcurrency = 16
	DefaultMaxAttempts = 3
	DefaultBackoff     = 100 * time.Millisecond
)

// Config is what New needs. Zero values take the defaults.
type Config struct {
	// BaseURL is the API root including /v1, e.g. https://api.clashroyale.com/v1.
	BaseURL string
	// Token is the Bearer token sent with every request, or several,
	// comma-separated, used in turn; one the game API refuses (403) is left
	// out for a while.
	Token string
	// Timeout bounds one logical call, retries included (default 10s).
	Timeout time.Duration
	// Concurrency is the most upstream requests in flight (default 16).
	Concurrency int
	// MaxAttempts is how often a transient failure is tried (default 3).
	MaxAttempts int
	// Backoff is the first wait between attempts; each retry doubles it, up
	// to 20 times Backoff, with jitter (default 100ms).
	Backoff time.Duration
	// HTTPClient is optional; the default has connection timeouts and a
	// keep-alive pool sized to Concurrency.
	HTTPClient *http.Client
	// Logger receives failures (and successes at debug level).
	Logger *slog.Logger
	// Clock reads HTTP-date Retry-After headers and times calls for logs
	// and metrics (default the system clock).
	Clock models.Clock
	// Metrics, when set, is where the call metrics are registered
	// (crowns_upstream_calls_total by endpoint and outcome,
	// crowns_upstream_call_duration_seconds); nil records none.
	Metrics prometheus.Registerer
}

// Client calls the official game API. It is safe for concurrent use.
type Client struct {
	baseURL     string
	tokens      *tokenRing
	timeout     time.Duration
	maxAttempts int
	retry       backoff.Policy
	http        *http.Client
	log         *slog.Logger
	clock       models.Clock
	inFlight    chan struct{}
	// builtIn is the catalog embedded in the binary; current is the one
	// answers are mapped with: builtIn, or builtIn with the game's latest
	// card and location lists merged over it (see CatalogRefresher). A
	// catalog is never changed once stored, only replaced.
	builtIn *catalog.Catalog
	current atomic.Pointer[catalog.Catalog]
	// metrics counts calls; nil without Config.Metrics.
	metrics *callMetrics
}

// New checks cfg, fills in defaults and returns a client.
func New(cfg Config) (*Client, error) {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("upstream: BaseURL must be an http(s) URL including /v1")
	}
	if cfg.Timeout < 0 || cfg.Concurrency < 0 || cfg.MaxAttempts < 0 || cfg.Backoff < 0 {
		return nil, errors.New("upstream: Timeout, Concurrency, MaxAttempts and Backoff must not be negative")
	}
	cat, err := catalog.Load()
	if err != nil {
		return nil, err
	}
	c := &Client{
		baseURL:     base,
		tokens:      newTokenRing(cfg.Token),
		timeout:     cmp.Or(cfg.Timeout, DefaultTimeout),
		maxAttempts: cmp.Or(cfg.MaxAttempts, DefaultMaxAttempts),
		retry:       retryPolicy(cmp.Or(cfg.Backoff, DefaultBackoff)),
		http:        cfg.HTTPClient,
		log:         cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler)),
		clock:       cmp.Or[models.Clock](cfg.Clock, models.SystemClock{}),
		inFlight:    make(chan struct{}, cmp.Or(cfg.Concurrency, DefaultConcurrency)),
		builtIn:     cat,
	}
	c.current.Store(cat)
	if c.metrics, err = newCallMetrics(cfg.Metrics); err != nil {
		return nil, fmt.Errorf("upstream: call metrics: %w", err)
	}
	if c.http == nil {
		c.http = defaultHTTPClient(cap(c.inFlight))
	}
	return c, nil
}

// Catalog is the catalog answers are mapped with now. It is safe to keep
// and read while a refresh replaces it.
func (c *Client) Catalog() *catalog.Catalog { return c.current.Load() }

// defaultHTTPClient bounds connecting and TLS, keeps a pool of idle
// connections as large as the concurrency, and leaves the overall bound to
// each call's context. It follows no redirect: the game API sends none,
// and a followed one would carry the Bearer token to wherever it points
// on the same host (another port, plain http); the redirect is answered
// as an unexpected status.
func defaultHTTPClient(concurrency int) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{CheckRedirect: refuseRedirect, Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          concurrency * 2,
		MaxIdleConnsPerHost:   concurrency,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}

// refuseRedirect is the CheckRedirect of the default HTTP client: the
// redirect itself is the answer.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
