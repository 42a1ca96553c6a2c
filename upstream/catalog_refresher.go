package upstream

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/official"
)

// CatalogRefreshEvery is how often the game's card and location lists are
// fetched again after a refresh that succeeded.
const CatalogRefreshEvery = 24 * time.Hour

// catalogRetryFirst is the first wait after a failed refresh; later ones
// double it up to twenty times (retryPolicy), never beyond a day.
const catalogRetryFirst = time.Minute

// defaultCatalogCheckEvery is how often Run looks at the clock.
const defaultCatalogCheckEvery = time.Minute

// CatalogStore keeps the last copy of each list the refresher fetched
// (store.Store does): GameCatalog answers models.ErrNotFound for a kind
// never stored.
type CatalogStore interface {
	SaveGameCatalog(ctx context.Context, c models.GameCatalogCopy) error
	GameCatalog(ctx context.Context, kind string) (models.GameCatalogCopy, error)
}

// CatalogRefresherConfig is what NewCatalogRefresher needs besides the
// client and the store. Zero values take the defaults.
type CatalogRefresherConfig struct {
	// Clock decides when a refresh is due (default the system clock).
	Clock models.Clock
	// Logger receives failed refreshes (default: discarded).
	Logger *slog.Logger
	// CheckEvery is how often Run looks whether a refresh is due (default
	// a minute); the clock alone says whether it is.
	CheckEvery time.Duration
}

// CatalogRefresher keeps a client's catalog current: it fetches the game's
// card list (GET /cards) and location list (GET /locations) at start and
// then every CatalogRefreshEvery, stores each list it got, and has the
// client map answers with the built-in catalog with the latest lists
// merged over it. A list that cannot be had (game API down, an error, a
// body that does not decode, an empty list) leaves the current copy in
// use, is logged in one line, and is tried again after a bounded backoff.
// LoadStored puts the stored lists to use before the first fetch, so a
// restart without the game API keeps the last copy.
type CatalogRefresher struct {
	client     *Client
	db         CatalogStore
	clock      models.Clock
	log        *slog.Logger
	checkEvery time.Duration

	mu        sync.Mutex // one refresh or load at a time; guards what follows
	cards     catalogList[official.Item]
	locations catalogList[official.Location]
	next      time.Time // when the next refresh is due; zero: at once
	failures  int       // refreshes failed in a row
}

// NewCatalogRefresher builds a refresher of client's catalog that stores
// its copies in store.
func NewCatalogRefresher(client *Client, db CatalogStore, cfg CatalogRefresherConfig) (*CatalogRefresher, error) {
	if client == nil || db == nil {
		return nil, errors.New("catalog refresher: a client and a store are required")
	}
	if cfg.CheckEvery < 0 {
		return nil, errors.New("catalog refresher: CheckEvery must not be negative")
	}
	r := &CatalogRefresher{
		client:     client,
		db:         db,
		clock:      cmp.Or[models.Clock](cfg.Clock, models.SystemClock{}),
		log:        cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler)).With("component", "catalog-refresher"),
		checkEvery: cmp.Or(cfg.CheckEvery, defaultCatalogCheckEvery),
		cards:      catalogList[official.Item]{kind: "cards", path: "/cards", valid: func(i official.Item) bool { return i.ID > 0 && i.Name != "" }},
		locations:  catalogList[official.Location]{kind: "locations", path: "/locations", valid: func(l official.Location) bool { return l.ID > 0 && l.Name != "" }},
	}
	return r, nil
}

// lists are the refresher's lists, in the order they are fetched.
func (r *CatalogRefresher) lists() []catalogKind { return []catalogKind{&r.cards, &r.locations} }

// LoadStored puts the stored copies to use: the client's catalog becomes
// the built-in one with them merged over it. A kind never stored keeps the
// built-in data; a copy that cannot be read is logged and skipped.
func (r *CatalogRefresher) LoadStored(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, list := range r.lists() {
		err := list.load(ctx, r.db)
		switch {
		case errors.Is(err, models.ErrNotFound):
		case err != nil:
			r.log.Warn("stored game catalog unusable; keeping the current copy", "kind", list.name(), "keeping", list.keeping(), "error", err)
		default:
			r.log.Info("stored game catalog in use", "kind", list.name(), "fetchedAt", list.fetched())
		}
	}
	r.install()
}

// RefreshIfDue refreshes when the clock has reached the next refresh (at
// once the first time) and reports whether it did; the error is Refresh's.
func (r *CatalogRefresher) RefreshIfDue(ctx context.Context) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.clock.Now().Before(r.next) {
		return false, nil
	}
	return true, r.refresh(ctx)
}

// Refresh fetches every list now, stores and uses those it got, and plans
// the next refresh: CatalogRefreshEvery later when all were had, after a
// backoff otherwise. Each failed list is logged in one line; the error
// joins them.
func (r *CatalogRefresher) Refresh(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refresh(ctx)
}

func (r *CatalogRefresher) refresh(ctx context.Context) error {
	now := r.clock.Now()
	var failed []error
	var failedLists []catalogKind
	for _, list := range r.lists() {
		if err := list.fetch(ctx, r.client, r.db, now); err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", list.name(), err))
			failedLists = append(failedLists, list)
		}
	}
	r.install()
	if len(failed) == 0 {
		r.failures, r.next = 0, now.Add(CatalogRefreshEvery)
		return nil
	}
	r.failures++
	r.next = now.Add(min(retryPolicy(catalogRetryFirst).Delay(r.failures), CatalogRefreshEvery))
	for i, list := range failedLists {
		r.log.Warn("game catalog refresh failed; keeping the current copy", "kind", list.name(),
			"keeping", list.keeping(), "failuresInRow", r.failures, "retryAt", r.next, "error", failed[i])
	}
	return errors.Join(failed...)
}

// install has the client map answers with the built-in catalog with the
// current lists merged over it.
func (r *CatalogRefresher) install() {
	r.client.current.Store(r.client.builtIn.Merge(catalogCards(r.cards.items), catalogLocations(r.locations.items)))
}

// Run refreshes at once and then whenever due, looking every CheckEvery,
// until ctx ends.
func (r *CatalogRefresher) Run(ctx context.Context) {
	ctx = models.AsBackground(ctx)
	ticker := time.NewTicker(r.checkEvery)
	defer ticker.Stop()
	for {
		_, _ = r.RefreshIfDue(ctx) // failures are logged by the refresh
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
