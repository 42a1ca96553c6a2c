package storetest

import (
	"context"
	"log/slog"
	"net/url"
	"testing"

	"github.com/crownsdev/crowns/internal/faultproxy"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
)

// PostgresBehindProxy returns the config of a fresh PostgreSQL schema
// reached through a fault-injecting proxy (see faultproxy), and the
// proxy; params are added to the URL's query (e.g. lock_timeout). Like
// every PostgreSQL test it skips without PostgreSQL, and fails with
// CI=true.
func PostgresBehindProxy(t testing.TB, params map[string]string) (store.DatabaseConfig, *faultproxy.Proxy) {
	t.Helper()
	u, err := url.Parse(freshSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatalf("start the fault proxy: %v", err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	u.Host = proxy.Addr()
	q := u.Query()
	for name, value := range params {
		q.Set(name, value)
	}
	u.RawQuery = q.Encode()
	return store.DatabaseConfig{URL: u.String(), DataDir: t.TempDir()}, proxy
}

// Unproxied is raw, a URL through a proxy, with target (the database's
// own host:port) in its place: a second process reaching the database
// directly.
func Unproxied(t testing.TB, raw, target string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = target
	return u.String()
}

// OpenBehindProxy opens and migrates a fresh PostgreSQL schema reached
// through a fault proxy (see PostgresBehindProxy; params are added to its
// URL), its store logging to logger on clock (nil: the store's defaults);
// it is closed when the test ends. direct is the database's URL without
// the proxy, for a second process that reaches it directly.
func OpenBehindProxy(t testing.TB, params map[string]string, logger *slog.Logger, clock models.Clock) (db *store.Store, proxy *faultproxy.Proxy, direct string) {
	t.Helper()
	cfg, proxy := PostgresBehindProxy(t, params)
	cfg.Logger, cfg.Clock = logger, clock
	db, err := store.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, proxy, Unproxied(t, cfg.URL, proxy.Target())
}
